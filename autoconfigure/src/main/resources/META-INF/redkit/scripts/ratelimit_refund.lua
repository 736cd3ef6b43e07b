-- Gives back what a rate-limit script took, when another cluster slot refused the same call or did
-- not answer it.
-- KEYS: the identifiers' keys that were charged, then the refund's marker (same slot); ARGV[1..3]:
-- see ratelimit_windows; ARGV[4]: the algorithm (fixed-window | sliding-window | sliding-log |
-- token-bucket); ARGV[5]: how long the marker is kept, in ms; ARGV[6]: the Redis time of the
-- decision, in ms; for the sliding window ARGV[7]: its sub-windows and ARGV[8]: one record's format.
-- What the decision took is found by its time: the fixed window's and the sliding window's counts
-- only while the decision's (sub-)window is still kept, the sliding log's members by their score.
-- A retried refund finds its marker and changes nothing: it is applied once. Returns 1 when this call
-- gave back, 0 when an earlier one had. A key that expired is left alone.
--#include ratelimit_windows
local marker = KEYS[#KEYS]
if not call('SET', marker, '1', 'NX', 'PX', ARGV[5]) then
  return 0
end
local floor = math.floor
local arguments, cost, n, format = read_arguments()
local algorithm, decided = ARGV[4], tonumber(ARGV[6])
if algorithm == 'sliding-log' then
  local score = string.format('%.0f', floor(decided * 1000 + 0.5))
  for k = 1, #KEYS - 1 do
    local taken = call('ZRANGEBYSCORE', KEYS[k], score, score, 'LIMIT', 0, cost)
    if #taken > 0 then call('ZREM', KEYS[k], unpack(taken)) end
  end
  return 1
end
local b, record, stride = nil, nil, 4
if algorithm == 'sliding-window' then b, record = tonumber(ARGV[7]), ARGV[8]; stride = b + 5 end
for k = 1, #KEYS - 1 do
  local state, records = read_windows(KEYS[k], format, n, arguments, record, stride)
  if records > 0 then
    for j = 1, n do
      local limit, period = arguments[2 * j], arguments[2 * j + 1]
      local r = find_window(state, records, period, stride)
      if r and algorithm == 'token-bucket' then
        state[r + 1] = state[r + 1] - cost * period / limit
      elseif r and algorithm == 'fixed-window' then
        if state[r + 1] == floor(decided / period) then state[r + 2] = math.max(state[r + 2] - cost, 0) end
      elseif r then
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
      end
    end
    local whole = (algorithm == 'sliding-window') and record or '<dddd'
    write_windows(KEYS[k], '<' .. string.rep(whole:sub(2), records), state, stride * records, nil)
  end
end
return 1
