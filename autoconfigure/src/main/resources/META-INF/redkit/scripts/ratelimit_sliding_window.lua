-- Sliding window rate limit (the previous window's count weighted by how much of it the sliding
-- window still covers) over every window of every identifier, checked before anything is consumed.
-- KEYS: one string per identifier; per window: period_ms, index of the current window, its count,
-- the previous window's count. ARGV and reply: see ratelimit_windows.
--#include ratelimit_windows
-- The per-window loop is written out in each algorithm rather than shared through a function:
-- measured, shared helper functions already cost Redis about 0.5 µs of the 6.5 µs a decision takes
-- (docs/benchmarks.md, "Where the 6.5 µs go"), and a call per window would add to it.
local ceil, max = math.ceil, math.max
local now = redis_time_ms()
now = now - now % 1
local arguments, cost, n, format = read_arguments()
local allowed, remaining, retry, reset, limiting = 1, nil, 0, 0, 0
local states, ttls = {}, {}
for k = 1, #KEYS do
  local old, records, aligned = read_windows(KEYS[k], format, n, arguments)
  -- records that match the policy are updated where they are
  local new = aligned and old or {}
  local ttl, rolled = 1, false
  for j = 1, n do
    local limit, period = arguments[2 * j], arguments[2 * j + 1]
    local elapsed = now % period
    local index = (now - elapsed) / period
    local current, previous, last = 0, 0, nil
    local r = aligned and 4 * j - 3 or find_window(old, records, period)
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
      if wait < 1 then wait = 1 end
      if allowed == 1 or wait > retry then retry = wait; limiting = j - 1 end
      allowed = 0
      left = limit - used
      left = (left > 0) and left - left % 1 or 0
    end
    local forgotten = 2 * period - elapsed
    if remaining == nil or left < remaining then
      remaining = left
      reset = forgotten
      if allowed == 1 then limiting = j - 1 end
    end
    local b = 4 * j
    new[b - 3], new[b - 2], new[b - 1], new[b] = period, index, current + cost, previous
    if last ~= index then rolled = true end
    if forgotten > ttl then ttl = forgotten end
  end
  states[k] = new
  -- the expiry, (index + 2) * period, only moves when a window rolls over
  ttls[k] = rolled and ttl or nil
end
return finish(allowed, states, ttls, format, 4 * n, remaining, retry, reset, limiting)
