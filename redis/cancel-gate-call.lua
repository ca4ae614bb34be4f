-- Takes back what one call of redis/request-gate.lua counted, for a caller that gave up waiting for its answer
-- (src/gate/round-trip.ts): its requests were answered 503 and served nothing, so nothing they counted may stay.
-- Redis may run the call before this (it was only slow) or after (the caller's connection was reconnected, or a
-- stopped Redis went on): the call's record tells which. A record with replies is the call's count, taken back
-- here; no record yet leaves the record 'cancelled', and the call, when it runs, counts nothing. Running this twice
-- takes nothing back twice.
--
-- KEYS: 1 the workspace's retrieval counter of the month, 2 its counter of the day, 3 the call's record
-- ARGV: 1 seconds the 'cancelled' record lives (longer than the caller goes on sending this)
-- Returns how many retrievals were taken back.
local recorded = redis.call('GET', KEYS[3])
redis.call('SET', KEYS[3], 'cancelled', 'EX', ARGV[1])
if not recorded or recorded == 'cancelled' then return 0 end
local counted = 0
for _, reply in ipairs(cjson.decode(recorded)) do
  if reply[2] == 'ok' then counted = counted + 1 end
end
if counted > 0 then
  for _, key in ipairs({KEYS[1], KEYS[2]}) do
    if redis.call('EXISTS', key) == 1 then redis.call('DECRBY', key, counted) end
  end
end
return counted
