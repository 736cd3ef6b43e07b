-- Gives an in-flight message back to the queue at once (graceful shutdown), without
-- counting the delivery, if the caller still owns it; once: the call's record (written
-- when it gave it back) answers the copy the client sends again after a reconnect.
-- KEYS[1] in-flight zset, KEYS[2] ready list, KEYS[3] the call's record "once:<operation
-- id>"; ARGV[1] element, ARGV[2] '1' = LIFO (back on top) else FIFO (back at the head),
-- ARGV[3] the in-flight entry "<take token>#<element>" (only this take may give it back),
-- ARGV[4] the replay window ms
-- Returns 1 when released, 0 when not owned any more.
--#include core_numbers
-- another writer's value at the ready list fails the call before it changes anything (an
-- error after the ZREM would lose the message)
redis.call('LLEN', KEYS[2])
if redis.call('ZREM', KEYS[1], ARGV[3]) == 0 then
  return redis.call('EXISTS', KEYS[3])
end
redis.call('SET', KEYS[3], '1', 'PX', ARGV[4])
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
