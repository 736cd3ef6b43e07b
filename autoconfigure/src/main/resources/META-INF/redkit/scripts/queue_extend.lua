-- Extends the visibility of a take that is still in flight: a compare-and-extend on
-- the take's token, as a lock lease is extended.
-- KEYS[1] in-flight zset, KEYS[2] next-due hint (see queue_hint.lua); ARGV[1] the
-- in-flight entry "<take token>#<element>", ARGV[2] visibility ms, counted from now on
-- the Redis clock.
-- Returns 1 when extended, 0 when the take was lost (its visibility timeout expired and
-- a take moved it back, or it was settled).
--#include queue_hint
local held = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not held then
  return 0
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local deadline = now + tonumber(ARGV[2])
-- a later deadline keeps the hint a lower bound; only a shorter visibility moves one
-- earlier: the hint is read before the ZADD, so that another writer's value there fails
-- the call before it changes anything
local earlier = deadline < tonumber(held)
local hint = earlier and tonumber(redis.call('GET', KEYS[2]))
redis.call('ZADD', KEYS[1], 'XX', exact(deadline), ARGV[1])
if earlier then
  keep_hint_below(KEYS[2], hint, deadline, now)
end
return 1
