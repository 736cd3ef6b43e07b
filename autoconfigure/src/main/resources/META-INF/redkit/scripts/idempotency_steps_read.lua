-- Reads the recorded steps of an operation for the redkit endpoint, on Redis' clock.
-- KEYS[1] state hash, KEYS[2] results hash (see idempotency_claim.lua)
-- ARGV[1] '1' to return the results of done steps, '' not to
-- Returns {now ms, pttl of the state hash, {step, state, lease deadline ms or '', result or false, ...}}
-- The claim token is never returned.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local steps = {}
local entries = redis.call('HGETALL', KEYS[1])
for i = 1, #entries, 2 do
  local name, value = entries[i], entries[i + 1]
  local state, deadline, result = 'completed', '', false
  if string.sub(value, 1, 1) ~= 'd' then
    deadline = string.match(value, '^p|(%d+)|') or ''
    state = (deadline ~= '' and tonumber(deadline) > now) and 'claimed' or 'expired'
  elseif ARGV[1] == '1' then
    result = redis.call('HGET', KEYS[2], name) or false
  end
  steps[#steps + 1] = name
  steps[#steps + 1] = state
  steps[#steps + 1] = deadline
  steps[#steps + 1] = result
end
return {string.format('%.0f', now), redis.call('PTTL', KEYS[1]), steps}
