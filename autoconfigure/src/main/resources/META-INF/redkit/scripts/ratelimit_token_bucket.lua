-- Token bucket as GCRA (generic cell rate algorithm): each window is a bucket of `limit` tokens that
-- refills at limit/period; its state is the theoretical arrival time (TAT, ms). Every bucket of every
-- identifier is checked before any is charged.
-- KEYS: one string per identifier; per window: period_ms, the TAT, what the bucket has taken since
-- its count started (ms of TAT) and when that count started (Redis ms; 0 in a record of a release
-- that kept no count: a count starts then). ARGV and reply: see ratelimit_windows; an allowed
-- call's reply goes on with, per identifier and window, the count once the call was taken and its
-- start (two little-endian doubles each): what ratelimit_refund_token_bucket needs to find how
-- much of the call the bucket still owes.
-- A charge (a negative cost) pushes the TAT at most 2^53 ms past now: the expiry stays one that
-- SET PX accepts, exact, and the bucket stays empty for longer than anyone waits.
-- The TAT is rounded up, never to the nearest: near today's time a double in ms steps by 2^-12 ms
-- (0.24 µs), which a token (period / limit) is rarely a whole number of. Rounded to the nearest,
-- each call that found the bucket owed left the TAT short of what it took (0.05 µs at 18 per
-- 400 ms), and a bucket drained one call at a time refilled the last token of a period their sum
-- early (2 µs): twice the limit in one period. Rounded up, a token is less than a step late a call.
--#include ratelimit_windows
-- The per-window loop is written out in each algorithm rather than shared through a function:
-- measured, shared helper functions already cost Redis about 0.5 µs of the 6.5 µs a decision takes
-- (docs/benchmarks.md, "Where the 6.5 µs go"), and a call per window would add to it.
local floor, ceil, max, min, frexp = math.floor, math.ceil, math.max, math.min, math.frexp
local horizon, restart = 2 ^ 53, 2 ^ 52
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
    local tat, taken, since = now, 0, now
    local r = aligned and 4 * j - 3 or find_window(old, records, period)
    if r then
      tat = max(old[r + 1], now)
      -- a count past 2^52 would lose its last digits: a new one starts
      if old[r + 3] > 0 and old[r + 2] < restart then taken, since = old[r + 2], old[r + 3] end
    end
    -- what the bucket owes once the call is taken, counted from now, where a double is fine
    -- enough that the TAT's rounding neither hides a token nor adds one (tat - now is exact).
    -- The call's share is cost * period / limit, not cost times the token: cost * period is
    -- whole, so a call of the whole limit owes the period exactly, where 15 x fl(1000 / 15)
    -- is 1000.0000000000001 and, rounded up, refused such a call for ever
    local owed = min(tat - now + cost * period / limit, horizon)
    local left = floor((period - owed) / interval + 1e-9)
    local new_tat = now + owed
    -- below what is owed, the sum was rounded down: the next double up is the first not below it
    if new_tat - now < owed and owed < horizon then
      local _, e = frexp(new_tat)
      new_tat = new_tat + 2 ^ (e - 53)
    end
    -- the count grows by the call's share without the TAT's rounding up: the refund takes
    -- that share off it, and a count left a fraction of a step above an earlier call's would
    -- tell that call a later one still holds tokens (settled last first, it got nothing back)
    local grown = owed - (tat - now)
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
    new[b - 3], new[b - 2], new[b - 1], new[b] = period, new_tat, taken + grown, since
    ttl = max(ttl, ceil(new_tat - now))
  end
  states[k], ttls[k] = new, ttl
end
local decided = finish(allowed, states, ttls, format, 4 * n, remaining, retry, reset, limiting, now, refused)
if allowed == 0 then
  return decided
end
local counts, c = {}, 0
for k = 1, #KEYS do
  for j = 1, n do
    counts[c + 1] = states[k][4 * j - 1]
    counts[c + 2] = states[k][4 * j]
    c = c + 2
  end
end
return decided .. struct_pack('<' .. string.rep('d', #counts), unpack(counts))
