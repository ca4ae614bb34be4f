-- One round trip for every bundle or manifest: the auth epoch and the key's revoked mark (see
-- src/auth/authenticator.ts), the workspace's graph generation (the cache and ETag key), and the
-- monthly quota, checked and counted atomically, so N parallel retrievals against R remaining give
-- exactly min(N, R) successes.
--
-- KEYS: 1 auth epoch, 2 revoked mark of the key, 3 graph generation, 4 quota counter of the month,
--       5 the workspace's monthly limit
-- ARGV: 1 seconds the counter lives (past the end of its month), 2 a fresh random generation, stored
--       when the workspace has none yet (never '0' or a counter: see src/infra/generations.ts)
-- Returns {epoch, revoked (0/1), generation, state, used, limit}; state is
--   'ok' (counted), 'exhausted' (not counted), 'revoked' (not counted), 'seed-limit' or 'seed-count'
--   (not counted: the caller loads that value from Neo4j, sets it, and calls again).
local epoch = redis.call('GET', KEYS[1]) or '0'
local generation = redis.call('GET', KEYS[3])
if not generation then
  redis.call('SET', KEYS[3], ARGV[2])
  generation = ARGV[2]
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  return {epoch, 1, generation, 'revoked', 0, 0}
end
local limit = redis.call('GET', KEYS[5])
if not limit then
  return {epoch, 0, generation, 'seed-limit', 0, 0}
end
limit = tonumber(limit)
local used = redis.call('GET', KEYS[4])
if not used then
  return {epoch, 0, generation, 'seed-count', 0, limit}
end
used = tonumber(used)
if used >= limit then
  return {epoch, 0, generation, 'exhausted', used, limit}
end
used = redis.call('INCR', KEYS[4])
redis.call('EXPIRE', KEYS[4], ARGV[1])
return {epoch, 0, generation, 'ok', used, limit}
