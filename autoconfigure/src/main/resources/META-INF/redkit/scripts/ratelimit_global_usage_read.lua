-- The usage of an identifier under a rate limit marked global, for the redkit endpoint: the sums
-- ratelimit_global_window decides on (every region's calls that this region has received),
-- read without counting anything.
-- KEYS[1] the identifier's regional counter (see ratelimit_global_window; each window's
-- sub-window counters are named after it, in its hash tag)
-- ARGV[1] B (sub-windows per window), ARGV[2..] the period in ms of each window, in the policy's
-- order
-- Reply per window: the calls counted, and the ms until the oldest sub-window that holds calls
-- is forgotten (0 when none).
--#include region_slots
local floor, ceil = math.floor, math.ceil
local time = redis.call('TIME')
local now = time[1] * 1000 + time[2] / 1000
local b = tonumber(ARGV[1])
local reply = {}
for j = 2, #ARGV do
  local width = tonumber(ARGV[j]) / b
  local index = floor(now / width)
  local used, reset = 0, 0
  for q = index - b, index do
    local count = total(KEYS[1] .. '.' .. exact(j - 1) .. '.' .. exact(q))
    if count > 0 and reset == 0 then
      reset = ceil((q + 1 + b) * width - now)
    end
    used = used + count
  end
  reply[#reply + 1] = used
  reply[#reply + 1] = reset
end
return reply
