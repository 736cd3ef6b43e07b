-- Reads a page of held locks for the redkit endpoint, in one call.
-- KEYS per lock: the lock, then its fencing counter (one hash tag per lock: on a cluster the
-- endpoint sends one call per lock, concurrently)
-- Reply per lock: the owner token ('' when released since the SCAN), the remaining lease in
-- ms (PTTL), the fencing token ('' when none): a nil would end a Lua array early.
local reply = {}
for i = 1, #KEYS, 2 do
  reply[#reply + 1] = redis.call('GET', KEYS[i]) or ''
  reply[#reply + 1] = redis.call('PTTL', KEYS[i])
  reply[#reply + 1] = redis.call('GET', KEYS[i + 1]) or ''
end
return reply
