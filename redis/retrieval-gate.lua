-- One round trip for the bundles and manifests of an event-loop turn (src/quota/service.ts sends every
-- retrieval that arrived in the same turn together): the auth epoch and each key's revoked mark (see
-- src/auth/authenticator.ts), each workspace's graph generation (the cache and ETag key), and the monthly
-- quota, checked and counted atomically and in order, so N parallel retrievals against R remaining give
-- exactly min(N, R) successes however they are grouped.
--
-- KEYS: 1 the auth epoch; then four per retrieval: the revoked mark of its key, the graph generation of its
--       workspace, the workspace's quota counter of the month, the workspace's monthly limit
-- ARGV: 1 seconds a counter lives (past the end of its month), 2 a fresh random value: a workspace that has
--       no generation yet gets it with the retrieval's position appended (never '0' or a counter: see
--       src/infra/generations.ts)
-- Returns one {epoch, revoked (0/1), generation, state, used, limit} per retrieval; state is
--   'ok' (counted), 'exhausted' (not counted), 'revoked' (not counted), 'seed-limit' or 'seed-count'
--   (not counted: the caller loads that value from Neo4j, sets it, and asks again).
local epoch = redis.call('GET', KEYS[1]) or '0'

local function gate(revokedKey, generationKey, counterKey, limitKey, freshGeneration)
  local generation = redis.call('GET', generationKey)
  if not generation then
    redis.call('SET', generationKey, freshGeneration)
    generation = freshGeneration
  end
  if redis.call('EXISTS', revokedKey) == 1 then
    return {epoch, 1, generation, 'revoked', 0, 0}
  end
  local limit = redis.call('GET', limitKey)
  if not limit then
    return {epoch, 0, generation, 'seed-limit', 0, 0}
  end
  limit = tonumber(limit)
  local used = redis.call('GET', counterKey)
  if not used then
    return {epoch, 0, generation, 'seed-count', 0, limit}
  end
  used = tonumber(used)
  if used >= limit then
    return {epoch, 0, generation, 'exhausted', used, limit}
  end
  used = redis.call('INCR', counterKey)
  redis.call('EXPIRE', counterKey, ARGV[1])
  return {epoch, 0, generation, 'ok', used, limit}
end

local replies = {}
for i = 1, (#KEYS - 1) / 4 do
  local k = 4 * (i - 1) + 1
  replies[i] = gate(KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], ARGV[2] .. ':' .. i)
end
return replies
