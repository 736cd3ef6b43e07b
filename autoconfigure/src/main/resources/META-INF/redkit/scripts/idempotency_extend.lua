-- Renews an in-progress claim's lease if the claim still holds the step.
-- KEYS[1] state hash (see idempotency_claim.lua)
-- ARGV[1] step, ARGV[2] token of the claim, ARGV[3] lease ms
-- Returns 1 when renewed, 0 when the claim no longer holds the step
--#include core_numbers
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then
  return 0
end
local ttl, token, fingerprint = string.match(current, '^p|%d+|(%d+)|([^|]*)|(.*)$')
if token ~= ARGV[2] then
  return 0
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local lease = tonumber(ARGV[3])
redis.call('HSET', KEYS[1], ARGV[1],
  'p|' .. exact(now + lease) .. '|' .. ttl .. '|' .. token .. '|' .. fingerprint)
if redis.call('PTTL', KEYS[1]) < lease then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return 1
