-- Token bucket as GCRA (generic cell rate algorithm): each window is a bucket of `limit` tokens that
-- refills at limit/period; its state is the theoretical arrival time (TAT, ms). Every bucket of every
-- identifier is checked before any is charged.
-- KEYS: one string per identifier (see ratelimit_windows); per window: period_ms, the TAT, 0, 0.
-- ARGV: cost, n (windows), then limit_j, period_ms_j for each window
-- returns {allowed, remaining, retry_after_ms, reset_after_ms, limiting window (0-based)}
--#include ratelimit_windows
local call, tonumber, floor, ceil, max = redis.call, tonumber, math.floor, math.ceil, math.max
local t = call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local cost = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local format = string.rep('<dddd', n)
local allowed, remaining, retry, reset, limiting = 1, nil, 0, 0, 0
local values, ttls = {}, {}
for k = 1, #KEYS do
  local old, records = read_windows(KEYS[k], format, n)
  local new, ttl = {}, 1
  for j = 1, n do
    local limit, period = ARGV[1 + 2 * j] + 0, ARGV[2 + 2 * j] + 0
    local interval = period / limit
    local tat = now
    local r = find_window(old, records, period, j)
    if r then tat = max(old[r + 1], now) end
    local new_tat = tat + cost * interval
    local left = floor((period - (new_tat - now)) / interval + 1e-9)
    local full_in = new_tat - now
    if new_tat - period > now then
      local wait = max(ceil(new_tat - period - now), 1)
      if allowed == 1 or wait > retry then retry = wait; limiting = j - 1 end
      allowed = 0
      left = max(floor((period - (tat - now)) / interval + 1e-9), 0)
      full_in = tat - now
    end
    if remaining == nil or left < remaining then
      remaining = left
      reset = ceil(full_in)
      if allowed == 1 then limiting = j - 1 end
    end
    new[4 * j - 3], new[4 * j - 2], new[4 * j - 1], new[4 * j] = period, new_tat, 0, 0
    ttl = max(ttl, ceil(new_tat - now))
  end
  values[k], ttls[k] = struct.pack(format, unpack(new)), ttl
end
if allowed == 1 then
  for k = 1, #KEYS do
    write_windows(KEYS[k], values[k], ttls[k])
  end
end
return {allowed, remaining, retry, reset, limiting}
