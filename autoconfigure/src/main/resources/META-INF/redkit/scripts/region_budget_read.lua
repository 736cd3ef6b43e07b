-- Reads a regional budget as this Redis sees it (see region_budget_change for the modes).
-- KEYS[1] the shared counter, KEYS[2] the allotted counter, KEYS[3..] every region's incoming
-- counter, this region's first
-- ARGV[1..] the regions, in the order of KEYS[3..]
-- Returns {0 no such budget | 1 shared | 2 allotted, what is left in all,
--          then (allotted) each region's share as seen here, in the order of ARGV}
--#include region_slots
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {1, total(KEYS[1])}
end
local reply = {2, total(KEYS[2])}
local found = redis.call('EXISTS', KEYS[2])
for i = 3, #KEYS do
  found = found + redis.call('EXISTS', KEYS[i])
  local given = total(KEYS[i])
  local own = redis.call('HMGET', KEYS[2], 'p:' .. ARGV[i - 2], 'n:' .. ARGV[i - 2])
  reply[2] = reply[2] + given
  table.insert(reply, tonumber(own[1] or '0') - tonumber(own[2] or '0') + given)
end
if found == 0 then
  return {0, 0}
end
return reply
