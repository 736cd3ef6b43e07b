-- Gives back what ratelimit_sliding_log took (see ratelimit_refund): the members the decision
-- added, found by their score, the decision's time in µs.
--#include ratelimit_refund
if not take_refund_marker() then
  return 0
end
local _, cost = read_arguments()
local score = string.format('%.0f', math.floor(tonumber(ARGV[6]) * 1000 + 0.5))
for k = 1, #KEYS - 1 do
  local taken = call('ZRANGEBYSCORE', KEYS[k], score, score, 'LIMIT', 0, cost)
  if #taken > 0 then call('ZREM', KEYS[k], unpack(taken)) end
end
return 1
