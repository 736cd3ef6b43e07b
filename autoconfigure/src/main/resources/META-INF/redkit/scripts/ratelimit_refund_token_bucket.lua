-- Gives back what ratelimit_token_bucket took (see ratelimit_refund), but only what the bucket still
-- owes of the call: its tokens are the call's stretch of the theoretical arrival time (TAT), and the
-- refill pays them back first to last. A stretch the refill has reached is spent: giving it back
-- would hand out tokens the refill already paid for. So at most the tokens owed now (TAT - now) less
-- what the count grew by since this call (the calls after it, owed after it, less what the last
-- calls taken gave back) come back, never more than asked,
-- and nothing once the bucket's count has started again (its key expired, or a release that keeps
-- no count wrote it). ARGV[7]: what the decision's reply adds for the refund, per identifier and
-- window the bucket's count once the call was taken and the count's start (see
-- ratelimit_token_bucket).
--#include ratelimit_refund
if not take_refund_marker() then
  return 0
end
local min = math.min
local arguments, cost, n, format = read_arguments()
local counts = #KEYS - 1
if #ARGV[7] ~= 16 * n * counts then
  -- a reply without the counts: nothing is known to be owed still
  return 1
end
local taken = { struct_unpack('<' .. string.rep('d', 2 * n * counts), ARGV[7]) }
local now = redis_time_ms()
for k = 1, counts do
  local state, records = read_windows(KEYS[k], format, n, arguments)
  local changed = false
  for j = 1, n do
    local limit, period = arguments[2 * j], arguments[2 * j + 1]
    local r = find_window(state, records, period)
    local t = 2 * (n * (k - 1) + j - 1)
    if r and state[r + 3] == taken[t + 2] then
      local above = state[r + 2] - taken[t + 1]
      local back = min(cost * period / limit, state[r + 1] - now - above)
      if back > 0 then
        state[r + 1] = state[r + 1] - back
        -- the last call taken gives its tokens off the top of the count too: the calls before it
        -- then find nothing taken after them, and their own give-backs come back whole (settled
        -- last first). A call with calls after it leaves the count: lowering it would make the
        -- later calls find the tokens of the earlier ones still owed.
        if above < 1e-6 then
          state[r + 2] = state[r + 2] - back
        end
        changed = true
      end
    end
  end
  if changed then
    write_windows(KEYS[k], '<' .. string.rep('dddd', records), state, 4 * records, nil)
  end
end
return 1
