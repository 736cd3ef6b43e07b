-- Removes an in-progress claim so that a retry can run the step; a done step stays done.
-- KEYS[1] state hash (see idempotency_claim.lua), KEYS[2] (whichever claim only) the record
-- of this call's id, generated per call: the client may send the call again after a
-- reconnect (issue 43), and that copy must not remove a claim taken since the first one
-- ARGV[1] step, ARGV[2] token of the claim ('' = whichever claim holds the step),
-- ARGV[3] how long the record of KEYS[2] is kept (ms)
-- Returns 1 when a claim was removed
if KEYS[2] then
  local first = redis.call('GET', KEYS[2])
  if first then
    return tonumber(first)
  end
end

local function removed()
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
end

local answer = removed()
if KEYS[2] then
  redis.call('SET', KEYS[2], answer, 'PX', ARGV[3])
end
return answer
