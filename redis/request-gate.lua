-- The request gate of ONE workspace (src/gate/round-trip.ts is the only caller and the only reader of the
-- reply): for every request of an event-loop turn that names this workspace, its access state, the
-- workspace's graph generation and, for a metered request (bundle, manifest), the monthly quota, checked and
-- counted atomically and in order, so N parallel retrievals against R remaining give exactly min(N, R)
-- successes however they are grouped. Every key carries the workspace's hash tag, so the script runs on one
-- Redis Cluster slot.
--
-- KEYS: 1 the workspace's auth epoch, 2 its graph generation, 3 its retrieval counter of the month,
--       4 its monthly limit, 5 its retrieval counter of the day (what the usage endpoint shows per day; counted
--       with the month's, never checked), 6 the workspace's latest write bookmarks (a list, newest first),
--       7 this call's record (unique to the call), 8.. the revoked marks of the keys the requests carry, each once
-- ARGV: 1 seconds a counter lives (past the end of its month; the day's lives as long), 2 a fresh random value (a missing epoch or
--       generation is created from it: never a counter, so a Redis that lost its data cannot bring back an
--       old value), 3 seconds the call's record lives, then two per request: the position in KEYS of its key's
--       revoked mark, and 1 if metered
-- Returns {epoch, generation, {bookmarks...}, {revoked, state, used, limit}...} in the order of the requests; state is
--   'open' (not metered), 'ok' (counted), 'exhausted' or 'revoked' (not counted), 'seed-limit' or
--   'seed-count' (not counted: the caller loads that value from Neo4j, sets it, and asks again).
-- A call that counted keeps its requests' replies in its record for ARGV[3] seconds. ioredis sends a call again
-- when the connection carrying it closed before its answer came (a failover); if the first one ran and reached the
-- replica that took over, the record is there and the call is answered from it, counting nothing more. A caller
-- whose call timed out cancels it (redis/cancel-gate-call.lua), before or after Redis runs it.
local function getOrCreate(key, fresh)
  local value = redis.call('GET', key)
  if not value then
    value = fresh
    redis.call('SET', key, value)
  end
  return value
end

local epoch = getOrCreate(KEYS[1], ARGV[2] .. ':epoch')
local generation = getOrCreate(KEYS[2], ARGV[2] .. ':generation')
local replies = {epoch, generation, redis.call('LRANGE', KEYS[6], 0, -1)}

local recorded = redis.call('GET', KEYS[7])
-- The caller gave up on this call and took it back (redis/cancel-gate-call.lua): it reads no reply, counts nothing.
if recorded == 'cancelled' then return replies end
if recorded then
  for _, reply in ipairs(cjson.decode(recorded)) do replies[#replies + 1] = reply end
  return replies
end

local limit = redis.call('GET', KEYS[4])
local used = redis.call('GET', KEYS[3])
local counted = 0
local revokedAt = {}
local requestReplies = {}
for i = 4, #ARGV, 2 do
  local at = tonumber(ARGV[i])
  if revokedAt[at] == nil then revokedAt[at] = redis.call('EXISTS', KEYS[at]) end
  local revoked = revokedAt[at]
  local reply
  if ARGV[i + 1] ~= '1' then
    reply = {revoked, 'open', 0, 0}
  elseif revoked == 1 then
    reply = {1, 'revoked', 0, 0}
  elseif not limit then
    reply = {0, 'seed-limit', 0, 0}
  elseif not used then
    reply = {0, 'seed-count', 0, tonumber(limit)}
  elseif tonumber(used) + counted >= tonumber(limit) then
    reply = {0, 'exhausted', tonumber(used) + counted, tonumber(limit)}
  else
    counted = counted + 1
    reply = {0, 'ok', tonumber(used) + counted, tonumber(limit)}
  end
  requestReplies[#requestReplies + 1] = reply
  replies[#replies + 1] = reply
end
if counted > 0 then
  redis.call('INCRBY', KEYS[3], counted)
  redis.call('EXPIRE', KEYS[3], ARGV[1])
  redis.call('INCRBY', KEYS[5], counted)
  redis.call('EXPIRE', KEYS[5], ARGV[1])
  redis.call('SET', KEYS[7], cjson.encode(requestReplies), 'EX', ARGV[3])
end
return replies
