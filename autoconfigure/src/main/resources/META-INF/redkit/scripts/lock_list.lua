-- Reads a page of held locks for the redkit endpoint, in one call.
-- KEYS per lock: the lock's record (see lock_record), then the fencing counter of the
-- previous layout (one hash tag per lock: on a cluster the endpoint sends one call per lock,
-- concurrently)
-- Reply per lock: the owner token ('' when free: released, or its lease ended), the remaining
-- lease in ms, the fencing token ('' when none): a nil would end a Lua array early.
--#include core_numbers
--#include lock_record
local now = micros()
local reply = {}
for i = 1, #KEYS, 2 do
  local value = redis.call('GET', KEYS[i])
  local fence, holder, ends = parse(value)
  if fence then
    if holder ~= '' and ends > now then
      reply[#reply + 1] = holder
      reply[#reply + 1] = millisUntil(ends, now)
      reply[#reply + 1] = exact(fence)
    else
      reply[#reply + 1] = ''
      reply[#reply + 1] = -2
      reply[#reply + 1] = ''
    end
  else
    -- nothing, or a lock of the previous layout: its lease is the key's TTL
    reply[#reply + 1] = value or ''
    reply[#reply + 1] = redis.call('PTTL', KEYS[i])
    reply[#reply + 1] = redis.call('GET', KEYS[i + 1]) or ''
  end
end
return reply
