-- Renews the lease of a permit that is still held.
-- KEYS[1] the permits (see concurrency_acquire.lua), ARGV[1] the permit's id, ARGV[2] the lease in ms
-- Returns 1 when renewed, 0 when the permit is gone or its lease has ended: its place may be
-- someone else's now, so it is never brought back.
--#include core_numbers
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local lease = tonumber(ARGV[2])
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then
  return 0
end
if tonumber(score) <= now then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 0
end
redis.call('ZADD', KEYS[1], 'XX', exact(now + lease), ARGV[1])
if redis.call('PTTL', KEYS[1]) < lease then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1
