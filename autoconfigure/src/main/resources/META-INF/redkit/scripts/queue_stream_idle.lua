-- Sets how long ago a held take of a stream entry counts as delivered, which decides when it
-- may be claimed again (XAUTOCLAIM claims entries idle for the visibility timeout):
-- extend (idle = visibility timeout - the new visibility), release (idle = the visibility
-- timeout, and one delivery less: claimable at once, not counted) and a retry after a backoff
-- (idle = visibility timeout - backoff). XCLAIM ... JUSTID does not count a delivery.
-- Once: the call's record holds its answer for the replay window. A released entry taken
-- again has the delivery count of the take released, so a release sent again by the client
-- after a reconnect would otherwise take the entry back from its next take.
-- KEYS[1] stream, KEYS[2] the call's record "once:<operation id>", KEYS[3] the claim cursor
-- (queue_stream_take.lua), KEYS[4] when the takes given back are due; ARGV[1] group, ARGV[2]
-- consumer, ARGV[3] entry id, ARGV[4] the take's delivery count, ARGV[5] idle ms, ARGV[6] the
-- delivery count to leave, ARGV[7] the replay window ms, ARGV[8] '1' = claimable at once (a
-- release): the claim scan's gate is opened, so that the next take claims it before reading
-- new entries; ARGV[9] the message id ('' = a stream another application writes).
-- Returns 1 when done, 0 when the take was lost (claimed again, settled, or its entry id given
-- to another message by a rollback), 2 when the entry was deleted from the stream while held
-- (a writer's trim: MAXLEN, XTRIM, XDEL): nothing is left to extend or give back, and it is
-- acknowledged (an XCLAIM would drop it from the pending list on Redis 7.0+ and answer as if it
-- were held, or keep it pending on 6.2).
--#include core_numbers
--#include queue_stream_owned
local first = redis.call('GET', KEYS[2])
if first then
  return tonumber(first)
end
local done = 0
local mine, entry = owned(KEYS[1], ARGV[1], ARGV[3], ARGV[4], ARGV[2], ARGV[9])
if mine then
  if in_stream(KEYS[1], ARGV[3], entry) then
    local now
    if ARGV[8] == '1' then
      now = check_gate(KEYS[3], KEYS[4])
    end
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'IDLE', ARGV[5], 'RETRYCOUNT', ARGV[6], 'JUSTID')
    if ARGV[8] == '1' then
      open_gate(KEYS[3], KEYS[4], ARGV[3], ARGV[6], now, 2 * tonumber(ARGV[5]))
    end
    done = 1
  else
    redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])
    done = 2
  end
end
redis.call('SET', KEYS[2], exact(done), 'PX', ARGV[7])
return done
