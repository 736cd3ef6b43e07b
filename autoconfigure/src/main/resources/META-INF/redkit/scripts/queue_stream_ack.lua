-- Acknowledges a message of a stream queue: its entry is acknowledged and deleted, if this
-- take still holds it.
-- KEYS[1] stream; ARGV[1] group, ARGV[2] '1' = the server has XACKDEL, ARGV[3] entry id,
-- ARGV[4] the take's delivery count.
-- Returns 1 when acknowledged, 0 when the take was lost (claimed again after its visibility
-- timeout, or settled already): the later take is left alone.
--#include queue_stream_owned
if owned(KEYS[1], ARGV[1], ARGV[3], ARGV[4]) then
  remove(KEYS[1], ARGV[1], ARGV[3], ARGV[2])
  return 1
end
return 0
