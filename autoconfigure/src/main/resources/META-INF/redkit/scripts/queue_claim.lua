-- Takes one message of a queue for a consumer, atomically.
-- First the bounded reaper: in-flight messages whose deadline passed and delayed
-- messages that are due go (back) to the ready list; then one message is popped, its
-- delivery count bumped, and it is tracked in-flight until now + visibility timeout.
-- KEYS[1] ready list, KEYS[2] in-flight zset (score = deadline), KEYS[3] delayed zset
-- (score = due time), KEYS[4] collapse hash (sha1(payload) -> pending delayed element)
-- ARGV[1] '1' = LIFO (pop the tail) else FIFO, ARGV[2] visibility timeout ms,
-- ARGV[3] reaper batch size, ARGV[4] optional: an in-flight element to acknowledge first
-- (a consumer acks its last message and takes the next in one round trip)
-- Returns {element, now, acked} or {'', wait ms until the next deadline/due time
-- (-1 = none), acked}; acked is 1 when ARGV[4] was still in flight and is now removed.
-- Elements are "<id>|<deliveries>|<json>".
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local batch = tonumber(ARGV[3])
local acked = 0
if ARGV[4] and ARGV[4] ~= '' then
  acked = redis.call('ZREM', KEYS[2], ARGV[4])
end

local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, batch)
for _, e in ipairs(expired) do
  redis.call('ZREM', KEYS[2], e)
  redis.call('RPUSH', KEYS[1], e)
end

local due = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, batch)
if #due > 0 then
  local collapsing = redis.call('EXISTS', KEYS[4]) == 1
  for _, e in ipairs(due) do
    redis.call('ZREM', KEYS[3], e)
    redis.call('RPUSH', KEYS[1], e)
    if collapsing then
      local p1 = string.find(e, '|', 1, true)
      local p2 = string.find(e, '|', p1 + 1, true)
      local k = redis.sha1hex(string.sub(e, p2 + 1))
      if redis.call('HGET', KEYS[4], k) == e then
        redis.call('HDEL', KEYS[4], k)
      end
    end
  end
end

local e
if ARGV[1] == '1' then
  e = redis.call('RPOP', KEYS[1])
else
  e = redis.call('LPOP', KEYS[1])
end
if not e then
  local wait = -1
  local nextDue = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
  if nextDue[2] then
    wait = tonumber(nextDue[2]) - now
  end
  local nextDeadline = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  if nextDeadline[2] then
    local w = tonumber(nextDeadline[2]) - now
    if wait < 0 or w < wait then
      wait = w
    end
  end
  if wait == 0 then
    wait = 1
  end
  return { '', string.format('%.0f', wait), acked }
end

local p1 = string.find(e, '|', 1, true)
local p2 = string.find(e, '|', p1 + 1, true)
local deliveries = tonumber(string.sub(e, p1 + 1, p2 - 1)) + 1
local claimed = string.sub(e, 1, p1) .. deliveries .. string.sub(e, p2)
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), claimed)
return { claimed, string.format('%.0f', now), acked }
