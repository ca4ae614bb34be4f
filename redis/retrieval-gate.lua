-- One round trip for the bundles and manifests of an event-loop turn (src/quota/service.ts sends every
-- retrieval that arrived in the same turn together): the auth epoch and each key's revoked mark (see
-- src/auth/authenticator.ts), each workspace's graph generation (the cache and ETag key), and the monthly
-- quota, checked and counted atomically and in order, so N parallel retrievals against R remaining give
-- exactly min(N, R) successes however they are grouped.
--
-- KEYS: 1 the auth epoch; then every other key the retrievals name, each once: revoked marks of keys, graph
--       generations, quota counters of the month and monthly limits of workspaces
-- ARGV: 1 seconds a counter lives (past the end of its month), 2 a fresh random value: a workspace that has
--       no generation yet gets it with the retrieval's position appended (never '0' or a counter: see
--       src/infra/generations.ts); then four per retrieval, positions in KEYS: the revoked mark of its key,
--       the generation, the counter and the limit of its workspace
-- Returns one {epoch, revoked (0/1), generation, state, used, limit} per retrieval; state is
--   'ok' (counted), 'exhausted' (not counted), 'revoked' (not counted), 'seed-limit' or 'seed-count'
--   (not counted: the caller loads that value from Neo4j, sets it, and asks again).
--
-- Each key is read at most once, and each counter written once at the end (INCRBY by the retrievals it
-- counted): the script's work follows the distinct keys, not the number of retrievals.
local epoch = redis.call('GET', KEYS[1]) or '0'

local read = {}
local function get(at)
  local value = read[at]
  if value == nil then
    value = redis.call('GET', KEYS[at])
    read[at] = value
  end
  return value
end

-- counter position -> retrievals this call counted on it
local counted = {}

local function gate(revokedAt, generationAt, counterAt, limitAt, freshGeneration)
  local generation = get(generationAt)
  if not generation then
    generation = freshGeneration
    redis.call('SET', KEYS[generationAt], generation)
    read[generationAt] = generation
  end
  if get(revokedAt) then
    return {epoch, 1, generation, 'revoked', 0, 0}
  end
  local limit = get(limitAt)
  if not limit then
    return {epoch, 0, generation, 'seed-limit', 0, 0}
  end
  limit = tonumber(limit)
  local used = get(counterAt)
  if not used then
    return {epoch, 0, generation, 'seed-count', 0, limit}
  end
  used = tonumber(used) + (counted[counterAt] or 0)
  if used >= limit then
    return {epoch, 0, generation, 'exhausted', used, limit}
  end
  counted[counterAt] = (counted[counterAt] or 0) + 1
  return {epoch, 0, generation, 'ok', used + 1, limit}
end

local replies = {}
for i = 1, (#ARGV - 2) / 4 do
  local k = 4 * (i - 1) + 2
  replies[i] = gate(tonumber(ARGV[k + 1]), tonumber(ARGV[k + 2]), tonumber(ARGV[k + 3]), tonumber(ARGV[k + 4]), ARGV[2] .. ':' .. i)
end
for counterAt, n in pairs(counted) do
  redis.call('INCRBY', KEYS[counterAt], n)
  redis.call('EXPIRE', KEYS[counterAt], ARGV[1])
end
return replies
