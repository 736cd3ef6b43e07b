-- Gives back what ratelimit_global_window took for a call settled below its estimate: this
-- region's count of the sub-windows the call was decided in, while they are kept, never more
-- than this region counted there; the change is queued for the other regions like a decision's.
-- KEYS: as ratelimit_global_window. ARGV[1..5]: as ratelimit_global_window, the cost being the
-- permits to give back; ARGV[6] the Redis time of the decision, in ms; ARGV[7..] per identifier
-- the name of KEYS[3..]; then how long the marker is kept, in ms. The last key is the give-back's
-- marker (same slot): an attempt sent again finds it and changes nothing, so a give-back is
-- applied once. Returns 1 when this attempt gave back, 0 when an earlier one had. The view of
-- the sub-windows (see ratelimit_global_view) gives back as much.
--#include ratelimit_windows
--#include region_slots
--#include ratelimit_global_view
local floor, min = math.floor, math.min
local arguments, cost, n = read_arguments()
local b, region, bound, decided = tonumber(ARGV[3]), ARGV[4], ARGV[5], tonumber(ARGV[6])
if not call('SET', KEYS[#KEYS], '1', 'NX', 'PX', ARGV[#ARGV]) then
  return 0
end
for k = 3, #KEYS - 1 do
  for j = 1, n do
    local suffix = '.' .. exact(j) .. '.' .. exact(floor(decided / (arguments[2 * j + 1] / b)))
    local key = KEYS[k] .. suffix
    local ttl = call('PTTL', key)
    if ttl > 0 then
      local _, p, m = sum(call('HGETALL', key), region)
      local back = min(cost, p - m)
      if back > 0 then
        ship(KEYS[1], KEYS[2], bound, ARGV[k + 4] .. suffix, p, call('HINCRBY', key, 'n:' .. region, exact(back)),
          ttl)
        to_view(key, -back, ttl)
      end
    end
  end
end
return 1
