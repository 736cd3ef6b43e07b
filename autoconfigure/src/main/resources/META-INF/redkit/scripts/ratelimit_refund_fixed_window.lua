-- Gives back what ratelimit_fixed_window took (see ratelimit_refund): the count, only while the
-- decision's window is still the current one.
--#include ratelimit_refund
local floor = math.floor
return refund_records(function(state, r, limit, period, cost, decided)
  if state[r + 1] == floor(decided / period) then state[r + 2] = math.max(state[r + 2] - cost, 0) end
end)
