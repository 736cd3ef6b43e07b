-- Extends the visibility of a take that is still in flight: a compare-and-extend on
-- the take's token, as a lock lease is extended.
-- KEYS[1] in-flight zset; ARGV[1] the in-flight entry "<take token>#<element>",
-- ARGV[2] visibility ms, counted from now on the Redis clock.
-- Returns 1 when extended, 0 when the take was lost (its visibility timeout expired and
-- a take moved it back, or it was settled).
--#include numbers
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return 0
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', exact(now + tonumber(ARGV[2])), ARGV[1])
return 1
