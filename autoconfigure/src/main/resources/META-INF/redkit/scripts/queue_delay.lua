-- Schedules a delayed message (seed 000: a sorted set scored by the due time) with a
-- collapse policy keyed by the SHA-1 of the payload.
-- KEYS[1] delayed zset, KEYS[2] collapse hash (sha1(payload) -> pending element),
-- KEYS[3] next-due hint (see queue_hint.lua)
-- ARGV[1] element "<id>|0|<json>", ARGV[2] delay ms, ARGV[3] 'first-wins' |
-- 'last-wins' | 'none'
-- Returns 1 when scheduled as a new message, 0 when collapsed: first-wins dropped this
-- one, last-wins replaced a pending one (its delay restarts).
--#include queue_hint
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = now + tonumber(ARGV[2])
local score = exact(due)
local e = ARGV[1]
if ARGV[3] == 'none' then
  redis.call('ZADD', KEYS[1], score, e)
  lower_hint(KEYS[3], due, now)
  return 1
end
local p1 = string.find(e, '|', 1, true)
local p2 = string.find(e, '|', p1 + 1, true)
local k = redis.sha1hex(string.sub(e, p2 + 1))
local pending = redis.call('HGET', KEYS[2], k)
if pending and redis.call('ZSCORE', KEYS[1], pending) then
  if ARGV[3] == 'first-wins' then
    return 0
  end
  redis.call('ZREM', KEYS[1], pending)
  redis.call('HSET', KEYS[2], k, e)
  redis.call('ZADD', KEYS[1], score, e)
  lower_hint(KEYS[3], due, now)
  return 0
end
redis.call('HSET', KEYS[2], k, e)
redis.call('ZADD', KEYS[1], score, e)
lower_hint(KEYS[3], due, now)
return 1
