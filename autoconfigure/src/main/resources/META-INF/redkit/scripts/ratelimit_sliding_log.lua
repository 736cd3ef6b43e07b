-- Sliding log over every window of every identifier, checked before anything is consumed: every
-- allowed call is a member of the identifier's sorted set, scored with its Redis time in µs, and a
-- window counts the members of its last period, so no interval of one period ever holds more than
-- `limit` calls, and a permit comes back the moment the call that took it is one period old.
-- KEYS: one sorted set per identifier, shared by all windows (a call is a call in every window); it
-- keeps at most the calls of the longest period. ARGV[1..2]: see ratelimit_arguments. Reply: see
-- ratelimit_arguments.
-- The longest window counts every member left (ZCARD), and its oldest member, read first, says
-- whether any call has to be forgotten: most decisions remove nothing and run no search by score.
--#include ratelimit_arguments
local ceil, max, format = math.ceil, math.max, string.format
local time = call('TIME')
local now_us = time[1] * 1000000 + time[2]
local now = now_us / 1000
local arguments, cost, n = read_arguments()
local longest, largest = 0, 0
for j = 1, n do
  longest, largest = max(longest, arguments[2 * j + 1]), max(largest, arguments[2 * j])
end
if forced and cost > largest then
  -- a charge of more members than the largest limit fills no window further
  cost = largest
end
local allowed, remaining, retry, reset, limiting, refused = 1, nil, 0, 0, 0, 0
for k = 1, #KEYS do
  local key = KEYS[k]
  -- calls older than the longest period count nowhere
  local cutoff = now_us - longest * 1000
  local oldest = call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if oldest[2] and tonumber(oldest[2]) <= cutoff then
    call('ZREMRANGEBYSCORE', key, '-inf', format('%.0f', cutoff))
    oldest = call('ZRANGE', key, 0, 0, 'WITHSCORES')
  end
  local kept = call('ZCARD', key)
  for j = 1, n do
    local limit, period = arguments[2 * j], arguments[2 * j + 1]
    -- a call made at s counts while s > now - period
    local since = '(' .. format('%.0f', now_us - period * 1000)
    local used = (period == longest) and kept or call('ZCOUNT', key, since, '+inf')
    local left = limit - used - cost
    if left < 0 and not forced then
      -- the (used + cost - limit)-th oldest counted call must be one period old first
      local due = call('ZRANGEBYSCORE', key, since, '+inf', 'WITHSCORES', 'LIMIT', exact(used + cost - limit - 1), 1)
      local wait = max(ceil((due[2] + period * 1000 - now_us) / 1000), 1)
      if allowed == 1 or wait > retry then retry = wait; limiting = j - 1 end
      allowed = 0
      refused = refused + 2 ^ (j - 1)
      left = max(limit - used, 0)
    end
    if remaining == nil or left < remaining then
      remaining = left
      -- a permit comes back when the oldest counted call is one period old
      if used > 0 then
        local first = (period == longest) and oldest
          or call('ZRANGEBYSCORE', key, since, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
        reset = ceil((first[2] + period * 1000 - now_us) / 1000)
      else
        reset = (allowed == 1) and period or 0
      end
      if allowed == 1 then limiting = j - 1 end
    end
  end
end
if allowed == 1 then
  local score = format('%.0f', now_us)
  for k = 1, #KEYS do
    -- members are unique: the decision's time and a number, past any taken in the same µs
    local added, i = 0, 0
    while added < cost do
      added = added + call('ZADD', KEYS[k], 'NX', score, score .. ':' .. exact(i))
      i = i + 1
    end
    call('PEXPIRE', KEYS[k], exact(longest))
  end
end
return reply_of(allowed, remaining, retry, reset, limiting, now, refused)
