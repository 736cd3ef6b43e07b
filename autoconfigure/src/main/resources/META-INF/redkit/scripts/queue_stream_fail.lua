-- Settles a message of a stream queue whose handler failed, if this take still holds it:
-- retry (the entry stays pending, given to the consumer of retries RETRIES, idle so that it
-- is claimed again after the backoff),
-- dead-letter it with its last error (into the same dead-letter keys as a list queue), or
-- drop it; acknowledging, deleting and dead-lettering are one step.
-- Once: the call's record holds its answer for the replay window, so that the copy the
-- client sends again after a reconnect answers as the first did (dead-lettered, not "not
-- owned") and does not restart a retry's backoff.
-- KEYS[1] stream, KEYS[2] dead hash (id -> element), KEYS[3] dead errors hash (id -> error),
-- KEYS[4] dead index zset (id -> dead time ms), KEYS[5] the call's record "once:<operation id>",
-- KEYS[6] the claim cursor (queue_stream_take.lua): a retry opens the claim scan's gate when
-- its backoff ends, as a release opens it at once; KEYS[7] when the takes given back are due
-- ARGV[1] group, ARGV[2] consumer, ARGV[3] '1' = the server has XACKDEL, ARGV[4] entry id,
-- ARGV[5] the take's delivery count, ARGV[6] 'retry' | 'dead' | 'drop', ARGV[7] idle ms for
-- a retry (visibility timeout - backoff), ARGV[8] message id, ARGV[9] element, ARGV[10]
-- error, ARGV[11] dead-letter retention ms, ARGV[12] the replay window ms, ARGV[13] the message
-- id the entry must hold ('' = a stream another application writes, or an unreadable entry),
-- ARGV[14] the retry's backoff ms.
-- Returns 0 = not owned any more, 1 = retried, 2 = dead-lettered, 3 = dropped, 4 = not retried:
-- the entry was deleted from the stream while held (a writer's trim), so it is acknowledged
-- (a retry's XCLAIM would drop it from the pending list on Redis 7.0+ and answer "retried").
--#include core_numbers
--#include queue_stream_owned
--#include queue_dead_letter
local first = redis.call('GET', KEYS[5])
if first then
  return tonumber(first)
end
local function settled(outcome)
  redis.call('SET', KEYS[5], outcome, 'PX', ARGV[12])
  return tonumber(outcome)
end
local mine, entry = owned(KEYS[1], ARGV[1], ARGV[4], ARGV[5], ARGV[2], ARGV[13])
if not mine then
  return settled('0')
end
if ARGV[6] == 'retry' then
  if not in_stream(KEYS[1], ARGV[4], entry) then
    redis.call('XACK', KEYS[1], ARGV[1], ARGV[4])
    return settled('4')
  end
  local now = check_gate(KEYS[6], KEYS[7])
  -- given to the group's consumer of retries, so that its holder's take ends as on a list (a
  -- late extend, ack, release or failure of it answers "lost"); JUSTID counts no delivery
  redis.call('XCLAIM', KEYS[1], ARGV[1], RETRIES, 0, ARGV[4], 'IDLE', ARGV[7], 'JUSTID')
  -- the visibility timeout is the idle time plus the backoff (a backoff is no longer)
  open_gate(KEYS[6], KEYS[7], ARGV[4], ARGV[5], now + tonumber(ARGV[14]),
    2 * (tonumber(ARGV[7]) + tonumber(ARGV[14])))
  return settled('1')
end
if ARGV[6] ~= 'drop' then
  check_dead_letter(KEYS[2], KEYS[3], KEYS[4])
end
remove(KEYS[1], ARGV[1], ARGV[4], ARGV[3])
if ARGV[6] == 'drop' then
  return settled('3')
end
dead_letter(KEYS[2], KEYS[3], KEYS[4], clock_ms(), ARGV[8], ARGV[9], ARGV[10], tonumber(ARGV[11]))
return settled('2')
