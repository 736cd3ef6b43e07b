-- Acknowledges a message: its take leaves the in-flight set, and so the queue; once: the
-- call's record holds its answer for the replay window, so that the copy the client sends
-- again after a reconnect answers as the first did (not "lost", which would report a late
-- acknowledgement). Written only when it acknowledged: a call that found the take lost
-- answers 0 again anyway.
-- KEYS[1] in-flight zset, KEYS[2] the call's record "once:<operation id>"; ARGV[1] the
-- in-flight entry "<take token>#<element>", ARGV[2] the replay window ms.
-- Returns 1 when this take was still in flight, 0 when it was lost (its visibility
-- timeout expired and a take moved it back, or it was settled already): another take
-- of the same message, even of the very same element, is left alone.
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
  return 1
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  return 1
end
return 0
