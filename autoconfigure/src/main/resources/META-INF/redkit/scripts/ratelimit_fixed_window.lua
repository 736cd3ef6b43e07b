-- Fixed window rate limit over every window x every identifier, checked before anything is consumed.
-- KEYS: one hash per (identifier, window), identifier-major: KEYS[i * n + j]
-- ARGV: cost, n (windows), then limit_j, period_ms_j for each window
-- state: w = index of the window the count belongs to, c = count
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
  local state = redis.call('HMGET', KEYS[k], 'w', 'c')
  local count = 0
  if tonumber(state[1]) == index then count = tonumber(state[2]) end
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
  pending[k] = {index, count + cost, window_end}
end
if allowed == 1 then
  for k = 1, #KEYS do
    local p = pending[k]
    redis.call('HSET', KEYS[k], 'w', p[1], 'c', p[2])
    redis.call('PEXPIRE', KEYS[k], p[3])
  end
end
return {allowed, remaining, retry, reset, limiting}
