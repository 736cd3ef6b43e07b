-- Shared by the scripts that change a global rate limit's sub-window counters (included with
-- --#include; needs core_numbers.lua). Each sub-window of a global limit is a regional counter named
-- 'rl.<digest>.<window>.<sub-window index>' (see ratelimit_global_window), replicated like any
-- other. Summing one of them costs a decision an HGETALL, so one per sub-window made a decision
-- 16 commands. The view is one hash per identifier and window on this Redis, next to the
-- counters ('...:window:rl.<digest>.<window>', in the same hash tag): field <sub-window index>
-- -> the sum of every region's p - n of that sub-window counter, so a decision reads one hash.
-- It is derived and never replicated: every script that changes such a counter (a decision, a
-- give-back, a reset, an applied entry, a recovery) changes the view by the same amount in the
-- same call, so that the counters and their view are lost, restored and changed together.

-- The view of a counter's key, and the counter's sub-window index, or nil when the key is not a
-- global limit's sub-window (no other counter's name starts with 'rl.', RegionalCounters
-- refuses them, and no ':' is left unescaped in a name, so the last ':counter:' ends the prefix).
local function window_view(counter_key)
  local base, name, window, index = string.match(counter_key, '^(.*):counter:(rl%.[%w_%-]+)%.(%d+)%.(%d+)$')
  if not base then
    return nil
  end
  return base .. ':window:' .. name .. '.' .. window, index
end

-- Changes the view of a counter by delta and lets it live at least ttl ms (nil: as long as the
-- counter), never shorter: a view's fields count as long as their counters.
local function to_view(counter_key, delta, ttl)
  local view, index = window_view(counter_key)
  if not view or delta == 0 then
    return
  end
  redis.call('HINCRBY', view, index, exact(delta))
  ttl = ttl or redis.call('PTTL', counter_key)
  -- ttl is the counter's: a sub-window counter always has one, so the view has one too
  if ttl > 0 and redis.call('PTTL', view) < ttl then
    redis.call('PEXPIRE', view, exact(ttl))
  end
end
