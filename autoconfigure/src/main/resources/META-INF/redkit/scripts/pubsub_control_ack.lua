-- Records which version a subscriber applied, with an expiry per member, and drops the
-- members whose acknowledgement has expired. KEYS[1] acks sorted set (score = expiry ms),
-- KEYS[2] acked versions hash. ARGV[1] subscriber id; ARGV[2] version; ARGV[3] TTL in ms.
-- Returns the number of live subscribers.
--#include core_numbers
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[3])
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', exact(now))
for i = 1, #expired do
  redis.call('HDEL', KEYS[2], expired[i])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', exact(now))
redis.call('ZADD', KEYS[1], exact(now + ttl), ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return redis.call('ZCARD', KEYS[1])
