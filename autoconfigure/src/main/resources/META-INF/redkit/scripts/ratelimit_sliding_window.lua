-- Sliding window rate limit (the previous window's count weighted by how much of it still overlaps
-- the sliding window) over every window x every identifier, checked before anything is consumed.
-- KEYS: one hash per (identifier, window), identifier-major: KEYS[i * n + j]
-- ARGV: cost, n (windows), then limit_j, period_ms_j for each window
-- state: w = index of the current window, c = its count, p = the previous window's count
-- returns {allowed, remaining, retry_after_ms, reset_after_ms, limiting window (0-based)}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cost = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local allowed, remaining, retry, reset, limiting = 1, nil, 0, 0, 0
local pending = {}
for k = 1, #KEYS do
  local j = (k - 1) % n + 1
  local limit = tonumber(ARGV[1 + 2 * j])
  local period = tonumber(ARGV[2 + 2 * j])
  local index = math.floor(now / period)
  local elapsed = now - index * period
  local state = redis.call('HMGET', KEYS[k], 'w', 'c', 'p')
  local stored = tonumber(state[1])
  local current, previous = 0, 0
  if stored == index then
    current, previous = tonumber(state[2]), tonumber(state[3])
  elseif stored == index - 1 then
    previous = tonumber(state[2])
  end
  local used = previous * (period - elapsed) / period + current
  local left = math.floor(limit - used - cost)
  if used + cost > limit then
    -- when will the weighted estimate let this cost through?
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
  local until_forgotten = 2 * period - elapsed
  if remaining == nil or left < remaining then
    remaining = left
    reset = until_forgotten
    if allowed == 1 then limiting = j - 1 end
  end
  pending[k] = {index, current + cost, previous, until_forgotten}
end
if allowed == 1 then
  for k = 1, #KEYS do
    local p = pending[k]
    redis.call('HSET', KEYS[k], 'w', p[1], 'c', p[2], 'p', p[3])
    redis.call('PEXPIRE', KEYS[k], p[4])
  end
end
return {allowed, remaining, retry, reset, limiting}
