-- Settles a message whose handler failed, if the caller still owns it (it is in-flight):
-- retry after a backoff (delayed zset), dead-letter it with its last error, or drop it.
-- KEYS[1] in-flight zset, KEYS[2] delayed zset, KEYS[3] dead hash (id -> element),
-- KEYS[4] dead errors hash (id -> error), KEYS[5] dead index zset (id -> dead time ms),
-- KEYS[6] next-due hint (see queue_hint.lua: a retry is a score in the delayed set)
-- ARGV[1] element, ARGV[2] 'retry' | 'dead' | 'drop', ARGV[3] backoff ms, ARGV[4] id,
-- ARGV[5] error, ARGV[6] dead-letter retention ms, ARGV[7] the in-flight entry
-- "<take token>#<element>" (only this take of the message may settle it)
-- Returns 0 = not owned any more (redelivered elsewhere), 1 = retried,
-- 2 = dead-lettered, 3 = dropped.
--#include queue_hint
if redis.call('ZREM', KEYS[1], ARGV[7]) == 0 then
  return 0
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if ARGV[2] == 'retry' then
  local due = now + tonumber(ARGV[3])
  redis.call('ZADD', KEYS[2], exact(due), ARGV[1])
  lower_hint(KEYS[6], due, now)
  return 1
end
if ARGV[2] == 'drop' then
  return 3
end
local retention = tonumber(ARGV[6])
-- dead letters older than the retention leave, a bounded batch per call
local old = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', exact(now - retention), 'LIMIT', 0, 100)
for _, id in ipairs(old) do
  redis.call('HDEL', KEYS[3], id)
  redis.call('HDEL', KEYS[4], id)
  redis.call('ZREM', KEYS[5], id)
end
redis.call('HSET', KEYS[3], ARGV[4], ARGV[1])
redis.call('HSET', KEYS[4], ARGV[4], ARGV[5])
redis.call('ZADD', KEYS[5], exact(now), ARGV[4])
redis.call('PEXPIRE', KEYS[3], ARGV[6])
redis.call('PEXPIRE', KEYS[4], ARGV[6])
redis.call('PEXPIRE', KEYS[5], ARGV[6])
return 2
