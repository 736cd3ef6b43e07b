-- Removes an in-progress claim so that a retry can run the step; a done step stays done.
-- KEYS[1] state hash (see idempotency_claim.lua)
-- ARGV[1] step, ARGV[2] token of the claim ('' = whichever claim holds the step)
-- Returns 1 when a claim was removed
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current or string.sub(current, 1, 1) ~= 'p' then
  return 0
end
local token = string.match(current, '^p|%d+|%d+|([^|]*)|')
if ARGV[2] ~= '' and token ~= ARGV[2] then
  return 0
end
redis.call('HDEL', KEYS[1], ARGV[1])
return 1
