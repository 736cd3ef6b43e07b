-- Token bucket as GCRA (generic cell rate algorithm): each window is a bucket of `limit` tokens that
-- refills at limit/period; the state is one number per (identifier, window): the theoretical arrival
-- time (TAT) in ms. All buckets are checked before any is charged.
-- KEYS: one string per (identifier, window), identifier-major: KEYS[i * n + j]
-- ARGV: cost, n (windows), then limit_j, period_ms_j for each window
-- returns {allowed, remaining, retry_after_ms, reset_after_ms, limiting window (0-based)}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local cost = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local allowed, remaining, retry, reset, limiting = 1, nil, 0, 0, 0
local pending = {}
for k = 1, #KEYS do
  local j = (k - 1) % n + 1
  local limit = tonumber(ARGV[1 + 2 * j])
  local period = tonumber(ARGV[2 + 2 * j])
  local interval = period / limit
  local tat = tonumber(redis.call('GET', KEYS[k])) or now
  if tat < now then tat = now end
  local new_tat = tat + cost * interval
  local allow_at = new_tat - period
  local left = math.floor((period - (new_tat - now)) / interval + 1e-9)
  local full_at = new_tat - now
  if allow_at > now then
    local wait = math.max(math.ceil(allow_at - now), 1)
    if allowed == 1 or wait > retry then retry = wait; limiting = j - 1 end
    allowed = 0
    left = math.max(math.floor((period - (tat - now)) / interval + 1e-9), 0)
    full_at = tat - now
  end
  if remaining == nil or left < remaining then
    remaining = left
    reset = math.ceil(full_at)
    if allowed == 1 then limiting = j - 1 end
  end
  pending[k] = {new_tat, math.max(math.ceil(new_tat - now), 1)}
end
if allowed == 1 then
  for k = 1, #KEYS do
    redis.call('SET', KEYS[k], string.format('%.3f', pending[k][1]), 'PX', pending[k][2])
  end
end
return {allowed, remaining, retry, reset, limiting}
