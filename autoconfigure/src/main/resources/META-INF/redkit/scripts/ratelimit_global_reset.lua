-- Resets an identifier under a rate limit marked global, for the redkit endpoint, in every
-- region: each sub-window counter that counts calls (as this region sees them) gets this
-- region's 'n:' slot raised by its total, so that it sums to zero, and the slot is shipped
-- through the outbox like a decision's, so that every peer that applies it sums to zero too
-- (a regional counter's slots only grow: deleting the counter here would be undone by the next
-- state shipped). Calls a peer made that have not reached this region yet still count there
-- and, once shipped, here.
-- KEYS[1] the outbox sequence, KEYS[2] the outbox stream, KEYS[3] the identifier's regional
-- counter (see ratelimit_global_window)
-- ARGV[1] B, ARGV[2] this region, ARGV[3] outbox bound (MAXLEN ~), ARGV[4] the counter's name,
-- ARGV[5..] the period in ms of each window, in the policy's order
-- Reply: how many sub-window counters were reset.
--#include region_slots
--#include ratelimit_global_view
local floor = math.floor
local time = redis.call('TIME')
local now = time[1] * 1000 + time[2] / 1000
local b, region, bound = tonumber(ARGV[1]), ARGV[2], ARGV[3]
local reset = 0
for j = 5, #ARGV do
  local width = tonumber(ARGV[j]) / b
  local index = floor(now / width)
  for q = index - b, index do
    local suffix = '.' .. exact(j - 4) .. '.' .. exact(q)
    local key = KEYS[3] .. suffix
    local count, p, n = sum(redis.call('HGETALL', key), region)
    local ttl = redis.call('PTTL', key)
    if count > 0 and ttl > 0 then
      n = n + count
      redis.call('HSET', key, 'n:' .. region, exact(n))
      ship(KEYS[1], KEYS[2], bound, ARGV[4] .. suffix, p, n, ttl)
      -- the view that decisions read (see ratelimit_global_view) sums to zero as well
      to_view(key, -count, ttl)
      reset = reset + 1
    end
  end
end
return reset
