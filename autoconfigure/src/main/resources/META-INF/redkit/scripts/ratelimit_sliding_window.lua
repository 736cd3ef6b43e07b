-- Sliding window in sub-windows over every window of every identifier, checked before anything is
-- consumed. Each window's period is split into B sub-windows of period / B; a call counts from when it
-- is made until one period after the end of its sub-window, so the last B + 1 sub-windows hold every
-- call of the last period: no interval of one period ever holds more than `limit` calls, and a permit
-- comes back at most period / B later than an exact log would give it back.
--
-- KEYS: one string per identifier, its record (little-endian): a header of the number of windows n
-- (1 byte), the period of each window in ms, the Redis time in ms the windows were last counted at (a
-- double), then per window the total of its counts, the count of its newest sub-window and how many
-- sub-windows older than the newest the oldest one with calls is (1 byte); then, only while one of
-- them holds a call, the rings: per window B counts, sub-window q in slot q % B, for the B
-- sub-windows before the newest. A window's newest sub-window is the one the header's time falls in.
-- The widths of a period, a total and a count are the policy's, and the key says which: counts as
-- narrow as the limits allow, saturating at the largest they hold (then the window refuses every
-- call until that sub-window is forgotten, as it would with the exact count).
-- ARGV[1..3]: see ratelimit_arguments (ARGV[3]: the header's struct format); ARGV[4]: B, the largest
-- count, the header's and the rings' size in bytes, as four little-endian doubles; ARGV[5]: the
-- rings' struct format; ARGV[6..8]: the struct formats of a period, of a window's three header
-- numbers and of a count. Reply: see ratelimit_arguments.
--
-- A call in the newest sub-window of every window, nearly every call, reads the record with one GET,
-- changes a few numbers of its header and writes the header back with one SETRANGE: the rings are
-- read and written only when a sub-window rolls over or a call is refused. The arguments are read
-- here rather than through ratelimit_arguments, and only the rings' two helpers are shared: Redis
-- builds every function of a script again on each call, and measured, the helpers of
-- ratelimit_windows cost more than the decision's own arithmetic.
--#include ratelimit_sliding_window_record
local call, struct_pack, struct_unpack = redis.call, struct.pack, struct.unpack
local ceil, floor = math.ceil, math.floor
local time = call('TIME')
local now = time[1] * 1000 + time[2] / 1000
local arguments = { struct_unpack(ARGV[2], ARGV[1]) }
local cost, n, forced = arguments[1], (#arguments - 2) / 2, false
if cost < 0 then
  -- a negative cost charges its amount whatever the windows hold: the excess of a settled call
  cost, forced = -cost, true
end
local header_format, rings_format = ARGV[3], ARGV[5]
local b, cap, header_size, rings_size = struct_unpack('<dddd', ARGV[4])
local numbers = 4 * n + 2
local allowed, remaining, retry, reset, limiting, refused = 1, nil, 0, 0, 0, 0
-- what each identifier's record becomes, written only when every window of every identifier allows
local headers, ringsets, ttls = {}, {}, {}
for k = 1, #KEYS do
  local stored = call('GET', KEYS[k])
  local header, rings, aligned
  if stored and (#stored == header_size or #stored == header_size + rings_size) then
    header = { struct_unpack(header_format, stored) }
    aligned = header[1] == n
    for j = 1, n do
      if header[j + 1] ~= arguments[2 * j + 1] then aligned = false end
    end
  end
  if not aligned then
    -- a new identifier, or a record of another policy (windows added, removed or reordered; same
    -- widths, as the key says): its windows are kept by their period, the others start empty
    header, rings = { n }, {}
    for s = 1, b * n do rings[s] = 0 end
    for j = 1, n do
      header[j + 1] = arguments[2 * j + 1]
      header[n + 3 * j], header[n + 3 * j + 1], header[n + 3 * j + 2] = 0, 0, 0
    end
    header[n + 2] = 0
    local m = stored and #stored > 0 and struct_unpack('<I1', stored) or 0
    local other_header = '<I1' .. string.rep(ARGV[6], m) .. 'd' .. string.rep(ARGV[7], m)
    local other_rings = '<' .. string.rep(ARGV[8], b * m)
    local size = struct.size(other_header)
    if m > 0 and (#stored == size or #stored == size + struct.size(other_rings)) then
      local old = { struct_unpack(other_header, stored) }
      local old_rings = (#stored > size) and { struct_unpack(other_rings, stored, size + 1) }
      header[n + 2] = old[m + 2]
      for j = 1, n do
        for i = 1, m do
          if old[i + 1] == header[j + 1] then
            for x = 0, 2 do header[n + 3 * j + x] = old[m + 3 * i + x] end
            for s = 1, old_rings and b or 0 do rings[b * (j - 1) + s] = old_rings[b * (i - 1) + s] end
          end
        end
      end
    end
  end
  -- the time the newest sub-windows were last counted at: a clock that went back counts in them
  local last = header[n + 2]
  local at = (now > last) and now or last
  local ttl, rolled = 1, not aligned
  for j = 1, n do
    local limit, period = arguments[2 * j], arguments[2 * j + 1]
    local width = period / b
    local index, newest = floor(at / width), floor(last / width)
    local h = n + 3 * j
    local total, current, first = header[h], header[h + 1], newest - header[h + 2]
    if index > newest then
      rings = rings or load_rings(stored, header_size, rings_format, b * n)
      local ring = b * (j - 1) + 1
      if index - newest > b then
        for s = ring, ring + b - 1 do rings[s] = 0 end
        total = 0
      else
        -- forget the sub-windows that left the window, then the newest joins the ring
        for q = newest - b, index - b - 1 do
          local s = ring + q % b
          total = total - rings[s]
          rings[s] = 0
        end
        rings[ring + newest % b] = current
      end
      current = 0
      if total == 0 then
        first = index
      elseif first < index - b then
        -- the oldest calls were forgotten: find the oldest sub-window left with calls
        first = index - b
        while rings[ring + first % b] == 0 do first = first + 1 end
      end
      rolled = true
    end
    local left = limit - total - cost
    if left < 0 and not forced then
      -- the oldest sub-windows must be forgotten until the cost fits
      rings = rings or load_rings(stored, header_size, rings_format, b * n)
      local ring, i, freed = b * (j - 1) + 1, b, 0
      while total - freed + cost > limit and i >= 0 do
        freed = freed + ((i == 0) and current or rings[ring + (index - i) % b])
        i = i - 1
      end
      local wait = ceil((index - i + b) * width - now)
      if wait < 1 then wait = 1 end
      if allowed == 1 or wait > retry then retry = wait; limiting = j - 1 end
      allowed = 0
      refused = refused + 2 ^ (j - 1)
      left = (limit > total) and limit - total or 0
    else
      if total == 0 then first = index end
      local counted = current + cost
      if counted > cap then counted = cap end
      total, current = total + counted - current, counted
    end
    header[h], header[h + 1], header[h + 2] = total, current, index - first
    if remaining == nil or left < remaining then
      remaining = left
      -- a permit comes back when the oldest sub-window that holds calls is forgotten
      reset = (total > 0) and ceil((first + 1 + b) * width - now) or 0
      if allowed == 1 then limiting = j - 1 end
    end
    -- the newest sub-window is forgotten one period after its end
    local forgotten = ceil((index + 1 + b) * width - now)
    if forgotten > ttl then ttl = forgotten end
  end
  header[n + 2] = at
  headers[k], ringsets[k], ttls[k] = header, rings, rolled and ttl
end
if allowed == 1 then
  for k = 1, #KEYS do
    local rings = ringsets[k]
    local packed = pack_record(header_format, headers[k], numbers, rings_format, rings, b * n)
    if not rings then
      -- only the header changed, and the expiry stays
      call('SETRANGE', KEYS[k], 0, packed)
    else
      -- the rings are read only when a sub-window rolled over (or a call was refused, and then
      -- nothing is written): the expiry moves
      call('SET', KEYS[k], packed, 'PX', string.format('%.0f', ttls[k]))
    end
  end
end
return struct_pack('<ddddddd', allowed, remaining, retry, reset, limiting, now, refused)
