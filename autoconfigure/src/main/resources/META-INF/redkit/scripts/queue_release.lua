-- Gives an in-flight message back to the queue at once (graceful shutdown), without
-- counting the delivery, if the caller still owns it.
-- KEYS[1] in-flight zset, KEYS[2] ready list
-- ARGV[1] element, ARGV[2] '1' = LIFO (back on top) else FIFO (back at the head),
-- ARGV[3] the in-flight entry "<take token>#<element>" (only this take may give it back)
-- Returns 1 when released, 0 when not owned any more.
--#include core_numbers
if redis.call('ZREM', KEYS[1], ARGV[3]) == 0 then
  return 0
end
local e = ARGV[1]
local p1 = string.find(e, '|', 1, true)
local p2 = string.find(e, '|', p1 + 1, true)
local deliveries = math.max(tonumber(string.sub(e, p1 + 1, p2 - 1)) - 1, 0)
local released = string.sub(e, 1, p1) .. exact(deliveries) .. string.sub(e, p2)
if ARGV[2] == '1' then
  redis.call('RPUSH', KEYS[2], released)
else
  redis.call('LPUSH', KEYS[2], released)
end
return 1
