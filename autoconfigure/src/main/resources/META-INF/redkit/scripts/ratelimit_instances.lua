-- The heartbeat of an instance whose rate limits fall back to a local limiter: records it
-- as live, drops the instances not heard of within the TTL and counts the rest, so that
-- each instance knows how many share the limits before Redis goes away.
-- KEYS[1] instances sorted set (score = last heartbeat, ms on Redis' clock).
-- ARGV[1] instance id; ARGV[2] TTL in ms (an instance missing it is no longer counted).
-- Returns the number of live instances, this one included.
--#include core_numbers
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', exact(now - ttl))
redis.call('ZADD', KEYS[1], exact(now), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('ZCARD', KEYS[1])
