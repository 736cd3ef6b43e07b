-- Fixed window rate limit over every window of every identifier, checked before anything is consumed.
-- KEYS: one string per identifier (see ratelimit_windows); per window: period_ms, index of the
-- window the count belongs to, the count, 0.
-- ARGV: cost, n (windows), then limit_j, period_ms_j for each window
-- returns {allowed, remaining, retry_after_ms, reset_after_ms, limiting window (0-based)}
--#include ratelimit_windows
local call, tonumber, floor, max = redis.call, tonumber, math.floor, math.max
local t = call('TIME')
local now = tonumber(t[1]) * 1000 + floor(tonumber(t[2]) / 1000)
local cost = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local format = string.rep('<dddd', n)
local allowed, remaining, retry, reset, limiting = 1, nil, 0, 0, 0
local values, ttls = {}, {}
for k = 1, #KEYS do
  local old, records = read_windows(KEYS[k], format, n)
  local new, ttl, rolled = {}, 1, false
  for j = 1, n do
    local limit, period = ARGV[1 + 2 * j] + 0, ARGV[2 + 2 * j] + 0
    local index = (now - now % period) / period
    local count, last = 0, nil
    local r = find_window(old, records, period, j)
    if r then
      last = old[r + 1]
      if last == index then count = old[r + 2] end
    end
    local window_end = (index + 1) * period - now
    local left = limit - count - cost
    if left < 0 then
      if allowed == 1 or window_end > retry then retry = window_end; limiting = j - 1 end
      allowed = 0
      left = max(limit - count, 0)
    end
    if remaining == nil or left < remaining then
      remaining = left
      reset = window_end
      if allowed == 1 then limiting = j - 1 end
    end
    new[4 * j - 3], new[4 * j - 2], new[4 * j - 1], new[4 * j] = period, index, count + cost, 0
    rolled = rolled or last ~= index
    ttl = max(ttl, window_end)
  end
  values[k] = struct.pack(format, unpack(new))
  -- the expiry, the end of the longest window, only moves when a window rolls over
  ttls[k] = rolled and ttl or nil
end
if allowed == 1 then
  for k = 1, #KEYS do
    write_windows(KEYS[k], values[k], ttls[k])
  end
end
return {allowed, remaining, retry, reset, limiting}
