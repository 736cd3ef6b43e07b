-- Sliding window rate limit (the previous window's count weighted by how much of it the sliding
-- window still covers) over every window of every identifier, checked before anything is consumed.
-- KEYS: one hash per identifier; per window: '<period_ms>:w' = index of the current window,
-- '<period_ms>:c' = its count, '<period_ms>:p' = the previous window's count.
-- ARGV: cost, n (windows), then limit_j, period_ms_j for each window
-- returns {allowed, remaining, retry_after_ms, reset_after_ms, limiting window (0-based)}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cost = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local fields = {}
for j = 1, n do
  fields[3 * j - 2] = ARGV[2 + 2 * j] .. ':w'
  fields[3 * j - 1] = ARGV[2 + 2 * j] .. ':c'
  fields[3 * j] = ARGV[2 + 2 * j] .. ':p'
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
    local elapsed = now - index * period
    local stored = tonumber(state[3 * j - 2])
    local current, previous = 0, 0
    if stored == index then
      current, previous = tonumber(state[3 * j - 1]), tonumber(state[3 * j])
    elseif stored == index - 1 then
      previous = tonumber(state[3 * j - 1])
    end
    local used = previous * (period - elapsed) / period + current
    local left = math.floor(limit - used - cost)
    if used + cost > limit then
      -- when will the weighted count let this cost through?
      local wait
      if current + cost <= limit then
        wait = math.ceil(period * (1 - (limit - current - cost) / previous)) - elapsed
      else
        wait = period - elapsed + math.max(0, math.ceil(period * (1 - (limit - cost) / current)))
      end
      wait = math.max(wait, 1)
      if allowed == 1 or wait > retry then retry = wait; limiting = j - 1 end
      allowed = 0
      left = math.max(math.floor(limit - used), 0)
    end
    local forgotten = 2 * period - elapsed
    if remaining == nil or left < remaining then
      remaining = left
      reset = forgotten
      if allowed == 1 then limiting = j - 1 end
    end
    update[6 * j - 5], update[6 * j - 4] = fields[3 * j - 2], index
    update[6 * j - 3], update[6 * j - 2] = fields[3 * j - 1], current + cost
    update[6 * j - 1], update[6 * j] = fields[3 * j], previous
    ttl = math.max(ttl, forgotten)
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
