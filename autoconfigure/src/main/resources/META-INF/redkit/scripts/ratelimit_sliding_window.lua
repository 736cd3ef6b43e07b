-- Sliding window rate limit (the previous window's count weighted by how much of it the sliding
-- window still covers) over every window of every identifier, checked before anything is consumed.
-- KEYS: one string per identifier (see ratelimit_windows); per window: period_ms, index of the
-- current window, its count, the previous window's count.
-- ARGV: cost, n (windows), then limit_j, period_ms_j for each window
-- returns {allowed, remaining, retry_after_ms, reset_after_ms, limiting window (0-based)}
--#include ratelimit_windows
local call, tonumber, floor, ceil, max = redis.call, tonumber, math.floor, math.ceil, math.max
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
    -- arithmetic instead of tonumber and floor: no function calls in the hot path
    local limit, period = ARGV[1 + 2 * j] + 0, ARGV[2 + 2 * j] + 0
    local index = (now - now % period) / period
    local elapsed = now - index * period
    local current, previous, last = 0, 0, nil
    local r = find_window(old, records, period, j)
    if r then
      last = old[r + 1]
      if last == index then
        current, previous = old[r + 2], old[r + 3]
      elseif last == index - 1 then
        previous = old[r + 2]
      end
    end
    local used = previous * (period - elapsed) / period + current
    local left = limit - used - cost
    left = left - left % 1
    if used + cost > limit then
      -- when will the weighted count let this cost through?
      local wait
      if current + cost <= limit then
        wait = ceil(period * (1 - (limit - current - cost) / previous)) - elapsed
      else
        wait = period - elapsed + max(0, ceil(period * (1 - (limit - cost) / current)))
      end
      wait = max(wait, 1)
      if allowed == 1 or wait > retry then retry = wait; limiting = j - 1 end
      allowed = 0
      left = max(floor(limit - used), 0)
    end
    local forgotten = 2 * period - elapsed
    if remaining == nil or left < remaining then
      remaining = left
      reset = forgotten
      if allowed == 1 then limiting = j - 1 end
    end
    new[4 * j - 3], new[4 * j - 2], new[4 * j - 1], new[4 * j] = period, index, current + cost, previous
    rolled = rolled or last ~= index
    ttl = max(ttl, forgotten)
  end
  values[k] = struct.pack(format, unpack(new))
  -- the expiry, (index + 2) * period, only moves when a window rolls over
  ttls[k] = rolled and ttl or nil
end
if allowed == 1 then
  for k = 1, #KEYS do
    write_windows(KEYS[k], values[k], ttls[k])
  end
end
return {allowed, remaining, retry, reset, limiting}
