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
-- Cost: each identifier and window reads one hash, the view of its sub-windows (see
-- ratelimit_global_view, not included here: its helpers would be rebuilt on every call for
-- nothing), not one hash per sub-window; an allowed call adds to this region's slot of the
-- sub-window's counter and to the view and ships the slot, and sets a TTL only on its first call
-- of a sub-window (HINCRBY keeps a key's TTL): TIME, HGETALL, HINCRBY, HINCRBY, INCR, XADD, six
-- commands for one window, where one hash per sub-window took 16.
--#include ratelimit_windows
--#include region_slots
local floor, ceil = math.floor, math.ceil
local now = redis_time_ms()
local arguments, cost, n = read_arguments()
if forced then
  -- a charge beyond the largest limit fills no window further: counts stay exact and in range
  local largest = 0
  for j = 1, n do largest = math.max(largest, arguments[2 * j]) end
  if cost > largest then cost = largest end
end
local b, region, bound = tonumber(ARGV[3]), ARGV[4], ARGV[5]
local allowed, remaining, retry, reset, limiting = 1, nil, 0, 0, 0
local refused, writes = {}, {}
for k = 3, #KEYS do
  -- the views of this identifier's windows: the counter's key with 'counter:' made 'window:'
  local views = string.sub(KEYS[k], 1, #KEYS[k] - #ARGV[k + 3] - 8) .. 'window:' .. ARGV[k + 3] .. '.'
  for j = 1, n do
    local limit, period = arguments[2 * j], arguments[2 * j + 1]
    local width = period / b
    local index = floor(now / width)
    local view = views .. exact(j)
    local fields = call('HGETALL', view)
    local counts, used, newest, stale = {}, 0, index, nil
    for q = index - b, index do
      counts[q] = 0
    end
    for i = 1, #fields, 2 do
      local q = tonumber(fields[i])
      if q < index - b then
        -- forgotten: deleted by the next call this region allows
        stale = stale or {}
        stale[#stale + 1] = fields[i]
      elseif q <= index then
        counts[q] = tonumber(fields[i + 1])
        used = used + counts[q]
      elseif q > newest then
        -- a peer whose clock is ahead: not counted yet, but the view must live as long
        newest = q
      end
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
      -- the sub-window is forgotten one period after its end, in every region; the view when
      -- its newest sub-window is
      table.insert(writes, {k, j, index, ceil((index + 1 + b) * width - now), view, #fields == 0,
        ceil((newest + 1 + b) * width - now), stale})
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
  local unit = exact(cost)
  for _, write in ipairs(writes) do
    local k, field, ttl, view = write[1], exact(write[3]), write[4], write[5]
    local suffix = '.' .. exact(write[2]) .. '.' .. field
    local key = KEYS[k] .. suffix
    local p = call('HINCRBY', key, 'p:' .. region, unit)
    local first = p == cost
    if first then
      -- this region's first call of the sub-window: later ones keep the TTL set here
      call('PEXPIRE', key, exact(ttl))
    end
    call('HINCRBY', view, field, unit)
    if first or write[6] then
      call('PEXPIRE', view, exact(write[7]))
    end
    if write[8] then
      call('HDEL', view, unpack(write[8]))
    end
    ship(KEYS[1], KEYS[2], bound, ARGV[k + 3] .. suffix, p, 0, ttl)
  end
end
return reply(allowed, remaining, retry, reset, limiting, now, refused)
