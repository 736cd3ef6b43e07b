-- Fixed window rate limit over every window of every identifier, checked before anything is consumed.
-- KEYS: one string per identifier; per window: period_ms, index of the window the count belongs
-- to, the count, 0. ARGV and reply: see ratelimit_windows.
--#include ratelimit_windows
-- The per-window loop is written out in each algorithm rather than shared through a function:
-- measured, shared helper functions already cost Redis about 0.5 µs of the 6.5 µs a decision takes
-- (docs/benchmarks.md, "Where the 6.5 µs go"), and a call per window would add to it.
local max = math.max
local now = redis_time_ms()
now = now - now % 1
local arguments, cost, n, format = read_arguments()
if forced then
  -- a charge beyond the largest limit fills no window further: counts stay exact and in range
  local largest = 0
  for j = 1, n do largest = math.max(largest, arguments[2 * j]) end
  if cost > largest then cost = largest end
end
local allowed, remaining, retry, reset, limiting = 1, nil, 0, 0, 0
local refused = {}
local states, ttls = {}, {}
for k = 1, #KEYS do
  local old, records, aligned = read_windows(KEYS[k], format, n, arguments)
  local new = aligned and old or {}
  local ttl, rolled = 1, false
  for j = 1, n do
    local limit, period = arguments[2 * j], arguments[2 * j + 1]
    local index = (now - now % period) / period
    local count, last = 0, nil
    local r = aligned and 4 * j - 3 or find_window(old, records, period)
    if r then
      last = old[r + 1]
      if last == index then count = old[r + 2] end
    end
    local window_end = (index + 1) * period - now
    local left = limit - count - cost
    if left < 0 and not forced then
      if allowed == 1 or window_end > retry then retry = window_end; limiting = j - 1 end
      allowed = 0
      refused[j] = true
      left = max(limit - count, 0)
    end
    if remaining == nil or left < remaining then
      remaining = left
      reset = window_end
      if allowed == 1 then limiting = j - 1 end
    end
    local b = 4 * j
    new[b - 3], new[b - 2], new[b - 1], new[b] = period, index, count + cost, 0
    if last ~= index then rolled = true end
    if window_end > ttl then ttl = window_end end
  end
  states[k] = new
  -- the expiry, the end of the longest window, only moves when a window rolls over
  ttls[k] = rolled and ttl or nil
end
return finish(allowed, states, ttls, format, 4 * n, remaining, retry, reset, limiting, now, refused)
