-- Lists the subscribers whose acknowledgement is still live, with the version each applied.
-- KEYS[1] acks sorted set (score = expiry ms), KEYS[2] acked versions hash.
-- Returns {subscriber1, version1, ...}.
--#include core_numbers
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local live = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. exact(now), '+inf')
local result = {}
for i = 1, #live do
  result[#result + 1] = live[i]
  result[#result + 1] = redis.call('HGET', KEYS[2], live[i]) or '0'
end
return result
