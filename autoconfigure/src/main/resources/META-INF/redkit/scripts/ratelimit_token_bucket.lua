-- Token bucket as GCRA (generic cell rate algorithm): each window is a bucket of `limit` tokens that
-- refills at limit/period; its state is the theoretical arrival time (TAT, ms). Every bucket of every
-- identifier is checked before any is charged.
-- KEYS: one string per identifier; per window: period_ms, the TAT, 0, 0. ARGV and reply: see
-- ratelimit_windows.
--#include ratelimit_windows
-- The per-window loop is written out in each algorithm rather than shared through a function:
-- measured, shared helper functions already cost Redis about 0.5 µs of the 6.5 µs a decision takes
-- (docs/benchmarks.md, "Where the 6.5 µs go"), and a call per window would add to it.
local floor, ceil, max = math.floor, math.ceil, math.max
local now = redis_time_ms()
local arguments, cost, n, format = read_arguments()
local allowed, remaining, retry, reset, limiting = 1, nil, 0, 0, 0
local refused = {}
local states, ttls = {}, {}
for k = 1, #KEYS do
  local old, records, aligned = read_windows(KEYS[k], format, n, arguments)
  local new, ttl = aligned and old or {}, 1
  for j = 1, n do
    local limit, period = arguments[2 * j], arguments[2 * j + 1]
    local interval = period / limit
    local tat = now
    local r = aligned and 4 * j - 3 or find_window(old, records, period)
    if r then tat = max(old[r + 1], now) end
    local new_tat = tat + cost * interval
    local left = floor((period - (new_tat - now)) / interval + 1e-9)
    local owed = new_tat - now
    if new_tat - period > now and not forced then
      local wait = max(ceil(new_tat - period - now), 1)
      if allowed == 1 or wait > retry then retry = wait; limiting = j - 1 end
      allowed = 0
      refused[j] = true
      left = max(floor((period - (tat - now)) / interval + 1e-9), 0)
      owed = tat - now
    end
    if remaining == nil or left < remaining then
      remaining = left
      -- the next token: when the permits owed fall to the next whole interval below the bucket's top
      reset = (owed > 0) and ceil(owed - period + (left + 1) * interval) or 0
      if allowed == 1 then limiting = j - 1 end
    end
    local b = 4 * j
    new[b - 3], new[b - 2], new[b - 1], new[b] = period, new_tat, 0, 0
    ttl = max(ttl, ceil(new_tat - now))
  end
  states[k], ttls[k] = new, ttl
end
return finish(allowed, states, ttls, format, 4 * n, remaining, retry, reset, limiting, now, refused)
