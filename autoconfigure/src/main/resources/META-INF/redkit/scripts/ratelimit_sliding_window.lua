-- Sliding window in sub-windows over every window of every identifier, checked before anything is
-- consumed. Each window's period is split into B sub-windows of period / B; a call counts from when it
-- is made until one period after the end of its sub-window, so the last B + 1 sub-windows hold every
-- call of the last period: no interval of one period ever holds more than `limit` calls, and a permit
-- comes back at most period / B later than an exact log would give it back.
-- KEYS: one string per identifier; per window a record: period_ms, the newest sub-window's index, the
-- oldest sub-window that holds calls, the total of the counts, then the counts of the last B + 1
-- sub-windows in a ring (sub-window q in slot q % (B + 1)).
-- ARGV[1..3]: see ratelimit_windows; ARGV[4]: B; ARGV[5]: one record's struct format. Reply: see
-- ratelimit_windows.
--#include ratelimit_windows
-- The per-window loop is written out in each algorithm rather than shared through a function:
-- measured, shared helper functions already cost Redis about 0.5 µs of the 6.5 µs a decision takes
-- (docs/benchmarks.md, "Where the 6.5 µs go"), and a call per window would add to it. The total and
-- the oldest sub-window with calls are kept beside the ring, so that a call in the newest sub-window
-- reads and writes a few numbers; only a roll-over that forgets the oldest calls and a refusal walk
-- the ring (measured: a walk of the ring costs Redis about 6 µs, more than the rest of a decision).
local ceil, floor = math.ceil, math.floor
local now = redis_time_ms()
local arguments, cost, n, format = read_arguments()
local b, record = tonumber(ARGV[4]), ARGV[5]
local slots, stride = b + 1, b + 5
local allowed, remaining, retry, reset, limiting = 1, nil, 0, 0, 0
local refused = {}
local states, ttls = {}, {}
for k = 1, #KEYS do
  local old, records, aligned = read_windows(KEYS[k], format, n, arguments, record, stride)
  local state = aligned and old or {}
  local ttl, rolled = 1, false
  for j = 1, n do
    local limit, period = arguments[2 * j], arguments[2 * j + 1]
    local width = period / b
    local index = floor(now / width)
    local base = stride * (j - 1)
    local ring = base + 5
    local r = aligned and base + 1 or find_window(old, records, period, stride)
    if not r then
      state[base + 1], state[base + 2], state[base + 3], state[base + 4] = period, index, index, 0
      for s = ring, base + stride do state[s] = 0 end
      rolled = true
    else
      if not aligned then
        for s = 0, stride - 1 do state[base + 1 + s] = old[r + s] end
      end
      local newest = state[base + 2]
      if index > newest then
        local total = state[base + 4]
        if index - newest >= slots then
          for s = ring, base + stride do state[s] = 0 end
          total = 0
        else
          -- forget the sub-windows that left the ring
          for q = newest + 1, index do
            local at = ring + q % slots
            total = total - state[at]
            state[at] = 0
          end
        end
        local first = state[base + 3]
        if total == 0 then
          first = index
        elseif first <= index - slots then
          -- the oldest calls were forgotten: find the oldest sub-window left with calls
          first = index - b
          while state[ring + first % slots] == 0 do first = first + 1 end
        end
        state[base + 2], state[base + 3], state[base + 4] = index, first, total
        rolled = true
      else
        -- Redis' clock went back: count in the newest sub-window
        index = newest
      end
    end
    local used = state[base + 4]
    local left = limit - used - cost
    if left < 0 and not forced then
      -- the oldest sub-windows must be forgotten until the cost fits
      local i, freed = b, 0
      while used - freed + cost > limit and i >= 0 do
        freed = freed + state[ring + (index - i) % slots]
        i = i - 1
      end
      local wait = ceil((index - i + b) * width - now)
      if wait < 1 then wait = 1 end
      if allowed == 1 or wait > retry then retry = wait; limiting = j - 1 end
      allowed = 0
      refused[j] = true
      left = (limit > used) and limit - used or 0
    else
      if used == 0 then state[base + 3] = index end
      local at = ring + index % slots
      state[at] = state[at] + cost
      state[base + 4] = used + cost
    end
    if remaining == nil or left < remaining then
      remaining = left
      -- a permit comes back when the oldest sub-window that holds calls is forgotten
      reset = (state[base + 4] > 0) and ceil((state[base + 3] + 1 + b) * width - now) or 0
      if allowed == 1 then limiting = j - 1 end
    end
    -- the newest sub-window is forgotten one period after its end
    local forgotten = ceil((index + 1 + b) * width - now)
    if forgotten > ttl then ttl = forgotten end
  end
  states[k] = state
  -- the expiry only moves when a sub-window rolls over
  ttls[k] = rolled and ttl or nil
end
return finish(allowed, states, ttls, format, stride * n, remaining, retry, reset, limiting, now, refused)
