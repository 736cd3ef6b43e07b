-- The sliding window of ratelimit_sliding_window, counted in every region: a limit marked
-- global keeps each sub-window's count as a regional counter (see region_slots), one slot per
-- region, so that this region decides on its own calls plus what the others have shipped so
-- far, and queues its own calls for them in the same call. The rule is the same: a call counts
-- from when it is made until one period after the end of its sub-window, and is allowed when
-- the last B + 1 sub-windows of every window, all regions together, leave room for it.
-- KEYS[1] the outbox sequence, KEYS[2] the outbox stream, KEYS[3..] per identifier the
-- regional counter whose name, with '.<window>.<sub-window index>' appended, names each of its
-- sub-window counters (names of safe characters only, so that appending to the key and to the
-- name give the same counter, see RedisKeyspace.escape)
-- ARGV[1..2] see ratelimit_windows, ARGV[3] B, ARGV[4] this region, ARGV[5] outbox bound
-- (MAXLEN ~), ARGV[6..] per identifier the name of KEYS[3..]
-- Reply: see ratelimit_windows.
--#include ratelimit_windows
--#include region_slots
local floor, ceil = math.floor, math.ceil
local now = redis_time_ms()
local arguments, cost, n = read_arguments()
local b, region, bound = tonumber(ARGV[3]), ARGV[4], ARGV[5]
local allowed, remaining, retry, reset, limiting = 1, nil, 0, 0, 0
local refused, writes = {}, {}
for k = 3, #KEYS do
  for j = 1, n do
    local limit, period = arguments[2 * j], arguments[2 * j + 1]
    local width = period / b
    local index = floor(now / width)
    local counts, used = {}, 0
    for q = index - b, index do
      counts[q] = total(KEYS[k] .. '.' .. exact(j) .. '.' .. exact(q))
      used = used + counts[q]
    end
    local left = limit - used - cost
    if left < 0 and not forced then
      -- the oldest sub-windows must be forgotten until the cost fits
      local q, freed = index - b, 0
      while used - freed + cost > limit and q <= index do
        freed = freed + counts[q]
        q = q + 1
      end
      local wait = ceil((q + b) * width - now)
      if wait < 1 then wait = 1 end
      if allowed == 1 or wait > retry then retry = wait; limiting = j - 1 end
      allowed = 0
      refused[j] = true
      left = (limit > used) and limit - used or 0
    else
      counts[index] = counts[index] + cost
      -- the sub-window is forgotten one period after its end, in every region
      table.insert(writes, {k, j, index, ceil((index + 1 + b) * width - now)})
    end
    if remaining == nil or left < remaining then
      remaining = left
      -- a permit comes back when the oldest sub-window that holds calls is forgotten
      reset = 0
      for q = index - b, index do
        if counts[q] > 0 then
          reset = ceil((q + 1 + b) * width - now)
          break
        end
      end
      if allowed == 1 then limiting = j - 1 end
    end
  end
end
if allowed == 1 then
  for _, write in ipairs(writes) do
    local k, suffix, ttl = write[1], '.' .. write[2] .. '.' .. exact(write[3]), write[4]
    local key = KEYS[k] .. suffix
    local p = call('HINCRBY', key, 'p:' .. region, exact(cost))
    call('PEXPIRE', key, exact(ttl))
    ship(KEYS[1], KEYS[2], bound, ARGV[k + 3] .. suffix, p, 0, ttl)
  end
end
return reply(allowed, remaining, retry, reset, limiting, now, refused)
