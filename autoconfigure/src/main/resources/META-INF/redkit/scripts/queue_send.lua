-- Appends messages to a queue's ready list, once: a send's one command, as a script so that
-- the client sending it again after a reconnect (Lettuce does, for a command written but
-- not answered) enqueues nothing more.
-- KEYS[1] ready list, KEYS[2] the send's record "once:<its first message's id>" (kept for
-- the replay window: a copy of this call arrives within it, never later)
-- ARGV[1] the replay window ms; ARGV[2..] elements "<id>[;<headers>]|0|<json>", in order.
-- Returns the length of the list.
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[1]) then
  return redis.call('RPUSH', KEYS[1], unpack(ARGV, 2))
end
return redis.call('LLEN', KEYS[1])
