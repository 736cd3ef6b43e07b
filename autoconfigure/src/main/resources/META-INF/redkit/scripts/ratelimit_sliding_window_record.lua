-- Shared by the sliding-window scripts (included with --#include): reading the rings of an
-- identifier's record and packing it (the layout is described in ratelimit_sliding_window). Two
-- functions only: Redis builds every function of a script again on each call.

-- The rings of a stored record whose header is `header_size` bytes: the counts that follow the
-- header, or zeros when it keeps none.
local function load_rings(stored, header_size, rings_format, slots)
  local rings = (#stored > header_size) and { struct.unpack(rings_format, stored, header_size + 1) } or {}
  for s = #rings + 1, slots do rings[s] = 0 end
  return rings
end

-- A record packed: its header, then its rings only when they were read and one of them holds a call.
local function pack_record(header_format, header, count, rings_format, rings, slots)
  local packed = struct.pack(header_format, unpack(header, 1, count))
  for s = 1, rings and slots or 0 do
    if rings[s] ~= 0 then
      return packed .. struct.pack(rings_format, unpack(rings, 1, slots))
    end
  end
  return packed
end
