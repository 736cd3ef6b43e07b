-- Acknowledges a message of a stream queue: its entry is acknowledged and deleted, if this
-- take still holds it; once: the call's record holds its answer for the replay window, so
-- that the copy the client sends again after a reconnect answers as the first did (not
-- "lost", which would report a late acknowledgement).
-- KEYS[1] stream, KEYS[2] the call's record "once:<operation id>"; ARGV[1] group, ARGV[2]
-- '1' = the server has XACKDEL, ARGV[3] entry id, ARGV[4] the take's delivery count,
-- ARGV[5] the replay window ms, ARGV[6] the consumer that took it, ARGV[7] the message id
-- ('' = a stream another application writes).
-- Returns 1 when acknowledged, 0 when the take was lost (claimed again after its visibility
-- timeout, settled already, or its entry id given to another message by a rollback): the
-- later take is left alone.
--#include core_numbers
--#include queue_stream_owned
local first = redis.call('GET', KEYS[2])
if first then
  return tonumber(first)
end
local done = 0
if owned(KEYS[1], ARGV[1], ARGV[3], ARGV[4], ARGV[6], ARGV[7]) then
  remove(KEYS[1], ARGV[1], ARGV[3], ARGV[2])
  done = 1
end
redis.call('SET', KEYS[2], exact(done), 'PX', ARGV[5])
return done
