-- Gives back one permit of a concurrency limit.
-- KEYS[1] the permits (see concurrency_acquire.lua), ARGV[1] the permit's id
-- Returns 1 when the permit was there, 0 when its lease had ended and another call removed it.
-- The set disappears with its last member.
return redis.call('ZREM', KEYS[1], ARGV[1])
