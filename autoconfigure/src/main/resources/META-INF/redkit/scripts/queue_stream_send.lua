-- Appends messages to a queue's stream, once: as queue_send.lua does for a list, the send's
-- record makes the copy the client sends again after a reconnect enqueue nothing more.
-- KEYS[1] stream, KEYS[2] the send's record "once:<its first message's id>" (kept for the
-- replay window)
-- ARGV[1] the replay window ms, ARGV[2] the length to trim to ('0' = never trimmed: XADD
-- MAXLEN ~ drops the oldest entries, delivered or not), ARGV[3..] elements
-- "<id>[;<headers>]|0|<json>", in order, each the field 'e' of an entry.
-- Returns the length of the stream.
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[1]) then
  for i = 3, #ARGV do
    if ARGV[2] == '0' then
      redis.call('XADD', KEYS[1], '*', 'e', ARGV[i])
    else
      redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'e', ARGV[i])
    end
  end
end
return redis.call('XLEN', KEYS[1])
