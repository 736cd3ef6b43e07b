-- Gives back what ratelimit_sliding_window took (see ratelimit_refund): the count of the
-- decision's sub-window, only while that sub-window is still kept. ARGV[7]: the sub-windows;
-- ARGV[8]: one record's format.
--#include ratelimit_refund
local floor = math.floor
local b = tonumber(ARGV[7])
return refund_records(ARGV[8], b + 5, function(state, r, limit, period, cost, decided)
  -- record: period, newest sub-window, oldest with calls, total, the ring of counts
  local sub, newest, slots = floor(decided / (period / b)), state[r + 1], b + 1
  if sub <= newest and sub > newest - slots then
    local slot = r + 4 + sub % slots
    local back = math.min(state[slot], cost)
    state[slot], state[r + 3] = state[slot] - back, state[r + 3] - back
    if state[r + 3] == 0 then
      state[r + 2] = newest
    elseif state[slot] == 0 and sub == state[r + 2] then
      local first = sub
      while state[r + 4 + first % slots] == 0 do first = first + 1 end
      state[r + 2] = first
    end
  end
end)
