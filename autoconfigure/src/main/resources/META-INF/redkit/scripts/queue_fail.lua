-- Settles a message whose handler failed, if the caller still owns it (it is in-flight):
-- retry after a backoff (delayed zset), dead-letter it with its last error, or drop it.
-- KEYS[1] in-flight zset, KEYS[2] delayed zset, KEYS[3] dead hash (id -> element),
-- KEYS[4] dead errors hash (id -> error), KEYS[5] dead index zset (id -> dead time ms),
-- KEYS[6] next-due hint (see queue_hint.lua: a retry is a score in the delayed set),
-- KEYS[7] the call's record "once:<operation id>" (written when it settled the message:
-- the copy the client sends again after a reconnect answers as the first did); a key of
-- another type than these fails the call with WRONGTYPE before it writes anything
-- ARGV[1] element, ARGV[2] 'retry' | 'dead' | 'drop', ARGV[3] backoff ms, ARGV[4] id,
-- ARGV[5] error, ARGV[6] dead-letter retention ms, ARGV[7] the in-flight entry
-- "<take token>#<element>" (only this take of the message may settle it), ARGV[8] the
-- replay window ms
-- Returns 0 = not owned any more (redelivered elsewhere), 1 = retried,
-- 2 = dead-lettered, 3 = dropped.
--#include queue_hint
--#include queue_dead_letter
-- another writer's value at a key this call writes (the delayed set, the hint, the dead
-- letters) fails it before it changes anything: an error after the ZREM would leave the
-- message out of flight, neither retried nor dead-lettered (lost)
local hint
if ARGV[2] == 'retry' then
  redis.call('ZCARD', KEYS[2])
  hint = tonumber(redis.call('GET', KEYS[6]))
elseif ARGV[2] ~= 'drop' then
  check_dead_letter(KEYS[3], KEYS[4], KEYS[5])
end
if redis.call('ZREM', KEYS[1], ARGV[7]) == 0 then
  return tonumber(redis.call('GET', KEYS[7]) or '0')
end
local now = clock_ms()
local outcome = 2
if ARGV[2] == 'retry' then
  local due = now + tonumber(ARGV[3])
  redis.call('ZADD', KEYS[2], exact(due), ARGV[1])
  keep_hint_below(KEYS[6], hint, due, now)
  outcome = 1
elseif ARGV[2] == 'drop' then
  outcome = 3
else
  dead_letter(KEYS[3], KEYS[4], KEYS[5], now, ARGV[4], ARGV[1], ARGV[5], tonumber(ARGV[6]))
end
redis.call('SET', KEYS[7], exact(outcome), 'PX', ARGV[8])
return outcome
