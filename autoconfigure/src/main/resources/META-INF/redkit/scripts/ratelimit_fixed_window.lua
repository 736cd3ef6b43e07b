-- Fixed window rate limit over every window of every identifier, checked before anything is consumed.
-- KEYS: one hash per identifier; field '<period_ms>:w' = index of the window the count belongs to,
-- '<period_ms>:c' = the count.
-- ARGV: cost, n (windows), then limit_j, period_ms_j for each window
-- returns {allowed, remaining, retry_after_ms, reset_after_ms, limiting window (0-based)}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cost = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local fields = {}
for j = 1, n do
  fields[2 * j - 1] = ARGV[2 + 2 * j] .. ':w'
  fields[2 * j] = ARGV[2 + 2 * j] .. ':c'
end
local allowed, remaining, retry, reset, limiting = 1, nil, 0, 0, 0
local updates, ttls = {}, {}
for k = 1, #KEYS do
  local state = redis.call('HMGET', KEYS[k], unpack(fields))
  local update, ttl = {}, 1
  for j = 1, n do
    local limit = tonumber(ARGV[1 + 2 * j])
    local period = tonumber(ARGV[2 + 2 * j])
    local index = math.floor(now / period)
    local count = 0
    if tonumber(state[2 * j - 1]) == index then count = tonumber(state[2 * j]) end
    local window_end = (index + 1) * period - now
    local left = limit - count - cost
    if left < 0 then
      if allowed == 1 or window_end > retry then retry = window_end; limiting = j - 1 end
      allowed = 0
      left = math.max(limit - count, 0)
    end
    if remaining == nil or left < remaining then
      remaining = left
      reset = window_end
      if allowed == 1 then limiting = j - 1 end
    end
    update[4 * j - 3], update[4 * j - 2] = fields[2 * j - 1], index
    update[4 * j - 1], update[4 * j] = fields[2 * j], count + cost
    ttl = math.max(ttl, window_end)
  end
  updates[k], ttls[k] = update, ttl
end
if allowed == 1 then
  for k = 1, #KEYS do
    redis.call('HSET', KEYS[k], unpack(updates[k]))
    redis.call('PEXPIRE', KEYS[k], ttls[k])
  end
end
return {allowed, remaining, retry, reset, limiting}
