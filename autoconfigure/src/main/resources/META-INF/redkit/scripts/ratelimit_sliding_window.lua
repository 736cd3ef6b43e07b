-- Sliding window in sub-windows over every window of every identifier, checked before anything is
-- consumed. Each window's period is split into B sub-windows of period / B; a call counts from when it
-- is made until one period after the end of its sub-window, so the last B + 1 sub-windows hold every
-- call of the last period: no interval of one period ever holds more than `limit` calls, and a permit
-- comes back at most period / B later than an exact log would give it back.
-- KEYS: one string per identifier; per window a record: period_ms, the newest sub-window's index, then
-- the counts of the last B + 1 sub-windows in a ring (sub-window q in slot q % (B + 1)).
-- ARGV[1..3]: see ratelimit_windows; ARGV[4]: B; ARGV[5]: one record's struct format. Reply: see
-- ratelimit_windows.
--#include ratelimit_windows
-- The per-window loop is written out in each algorithm rather than shared through a function:
-- measured, shared helper functions already cost Redis about 0.5 µs of the 6.5 µs a decision takes
-- (docs/benchmarks.md, "Where the 6.5 µs go"), and a call per window would add to it.
local ceil, floor = math.ceil, math.floor
local now = redis_time_ms()
local arguments, cost, n, format = read_arguments()
local b, record = tonumber(ARGV[4]), ARGV[5]
local slots, stride = b + 1, b + 3
local allowed, remaining, retry, reset, limiting = 1, nil, 0, 0, 0
local refused = {}
local states, ttls = {}, {}
local counts = {}
for k = 1, #KEYS do
  local old, records, aligned = read_windows(KEYS[k], format, n, arguments, record, stride)
  local new = {}
  local ttl, rolled = 1, false
  for j = 1, n do
    local limit, period = arguments[2 * j], arguments[2 * j + 1]
    local width = period / b
    local index = floor(now / width)
    local r = aligned and stride * (j - 1) + 1 or find_window(old, records, period, stride)
    -- counts[i]: the sub-window i before the current one (i = 0: the current one)
    local used, newest = 0, nil
    if r then newest = old[r + 1] end
    for i = 0, b do
      local sub = index - i
      local count = 0
      if newest and sub <= newest and sub > newest - slots then
        count = old[r + 2 + sub % slots]
      end
      counts[i] = count
      used = used + count
    end
    local left = limit - used - cost
    if left < 0 then
      -- the oldest sub-windows must be forgotten until the cost fits
      local i, freed = b, 0
      while used - freed + cost > limit and i >= 0 do
        freed = freed + counts[i]
        i = i - 1
      end
      local wait = ceil((index - i + b) * width - now)
      if wait < 1 then wait = 1 end
      if allowed == 1 or wait > retry then retry = wait; limiting = j - 1 end
      allowed = 0
      refused[j] = true
      left = (limit > used) and limit - used or 0
    else
      counts[0] = counts[0] + cost
    end
    if remaining == nil or left < remaining then
      remaining = left
      -- a permit comes back when the oldest sub-window that holds calls is forgotten
      reset = 0
      for i = b, 0, -1 do
        if counts[i] > 0 then
          reset = ceil((index - i + 1 + b) * width - now)
          break
        end
      end
      if allowed == 1 then limiting = j - 1 end
    end
    local base = stride * (j - 1)
    new[base + 1], new[base + 2] = period, index
    for i = 0, b do
      new[base + 3 + (index - i) % slots] = counts[i]
    end
    if newest ~= index then rolled = true end
    -- the current sub-window is forgotten one period after its end
    local forgotten = ceil((index + 1 + b) * width - now)
    if forgotten > ttl then ttl = forgotten end
  end
  states[k] = new
  -- the expiry only moves when a sub-window rolls over
  ttls[k] = rolled and ttl or nil
end
return finish(allowed, states, ttls, format, stride * n, remaining, retry, reset, limiting, now, refused)
