-- Schedules a delayed message (seed 000: a sorted set scored by the due time) with a
-- collapse policy keyed by the SHA-1 of the payload.
-- KEYS[1] delayed zset, KEYS[2] collapse hash (sha1(payload) -> pending element),
-- KEYS[3] next-due hint (see queue_hint.lua), KEYS[4] the call's record "once:<message
-- id>" holding its answer for the replay window: the same call sent again by the client
-- after a reconnect is answered as the first was and changes nothing (the message may
-- have been due and taken in between: scheduling it again would deliver it twice)
-- ARGV[1] element "<id>|0|<json>", ARGV[2] delay ms, ARGV[3] 'first-wins' |
-- 'last-wins' | 'none', ARGV[4] the replay window ms
-- Returns 1 when scheduled as a new message, 0 when collapsed: first-wins dropped this
-- one, last-wins replaced a pending one (its delay restarts).
--#include queue_hint
local first = redis.call('GET', KEYS[4])
if first then
  return tonumber(first)
end
local function answer(scheduled)
  redis.call('SET', KEYS[4], scheduled, 'PX', ARGV[4])
  return scheduled
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = now + tonumber(ARGV[2])
local score = exact(due)
local e = ARGV[1]
if ARGV[3] == 'none' then
  redis.call('ZADD', KEYS[1], score, e)
  lower_hint(KEYS[3], due, now)
  return answer(1)
end
local p1 = string.find(e, '|', 1, true)
local p2 = string.find(e, '|', p1 + 1, true)
local k = redis.sha1hex(string.sub(e, p2 + 1))
local pending = redis.call('HGET', KEYS[2], k)
if pending and redis.call('ZSCORE', KEYS[1], pending) then
  if ARGV[3] == 'first-wins' then
    return answer(0)
  end
  redis.call('ZREM', KEYS[1], pending)
  redis.call('HSET', KEYS[2], k, e)
  redis.call('ZADD', KEYS[1], score, e)
  lower_hint(KEYS[3], due, now)
  return answer(0)
end
redis.call('HSET', KEYS[2], k, e)
redis.call('ZADD', KEYS[1], score, e)
lower_hint(KEYS[3], due, now)
return answer(1)
