-- Gives back what ratelimit_sliding_window took (see ratelimit_refund): the count of the
-- decision's sub-window, only while that sub-window is still kept, and never from a count that
-- saturated (it may hold more than its bytes say). A record of another policy is left alone.
-- ARGV[7..11]: the decision script's ARGV[4..8] (its record's layout, see there).
--#include ratelimit_refund
--#include ratelimit_sliding_window_record
if not take_refund_marker() then
  return 0
end
local floor = math.floor
local arguments, cost, n, header_format = read_arguments()
local b, cap, header_size, rings_size = struct_unpack('<dddd', ARGV[7])
local rings_format = ARGV[8]
local decided = tonumber(ARGV[6])
for k = 1, #KEYS - 1 do
  local stored = call('GET', KEYS[k])
  local header = stored and (#stored == header_size or #stored == header_size + rings_size)
    and { struct_unpack(header_format, stored) }
  local aligned = header and header[1] == n
  for j = 1, aligned and n or 0 do
    if header[j + 1] ~= arguments[2 * j + 1] then aligned = false end
  end
  if aligned then
    local rings = load_rings(stored, header_size, rings_format, b * n)
    local last, changed = header[n + 2], false
    for j = 1, n do
      local width = arguments[2 * j + 1] / b
      local sub, newest, h, ring = floor(decided / width), floor(last / width), n + 3 * j, b * (j - 1) + 1
      local total, current, first = header[h], header[h + 1], newest - header[h + 2]
      local back = 0
      if sub == newest and current < cap then
        back = math.min(current, cost)
        current = current - back
      elseif sub < newest and sub >= newest - b and rings[ring + sub % b] < cap then
        local s = ring + sub % b
        back = math.min(rings[s], cost)
        rings[s] = rings[s] - back
        changed = changed or back > 0
      end
      total = total - back
      if total == 0 then
        first = newest
      elseif back > 0 and sub == first then
        -- the oldest sub-window with calls may have emptied: find the oldest left
        while first < newest and rings[ring + first % b] == 0 do first = first + 1 end
      end
      header[h], header[h + 1], header[h + 2] = total, current, newest - first
    end
    if changed then
      call('SET', KEYS[k], pack_record(header_format, header, 4 * n + 2, rings_format, rings, b * n), 'KEEPTTL')
    else
      call('SETRANGE', KEYS[k], 0, pack_record(header_format, header, 4 * n + 2))
    end
  end
end
return 1
