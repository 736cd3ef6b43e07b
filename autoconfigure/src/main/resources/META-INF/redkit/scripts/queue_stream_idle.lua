-- Sets how long ago a held take of a stream entry counts as delivered, which decides when it
-- may be claimed again (XAUTOCLAIM claims entries idle for the visibility timeout):
-- extend (idle = visibility timeout - the new visibility), release (idle = the visibility
-- timeout, and one delivery less: claimable at once, not counted) and a retry after a backoff
-- (idle = visibility timeout - backoff). XCLAIM ... JUSTID does not count a delivery.
-- KEYS[1] stream; ARGV[1] group, ARGV[2] consumer, ARGV[3] entry id, ARGV[4] the take's
-- delivery count, ARGV[5] idle ms, ARGV[6] the delivery count to leave.
-- Returns 1 when done, 0 when the take was lost (claimed again, or settled).
--#include queue_stream_owned
if not owned(KEYS[1], ARGV[1], ARGV[3], ARGV[4]) then
  return 0
end
redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'IDLE', ARGV[5], 'RETRYCOUNT', ARGV[6], 'JUSTID')
return 1
