-- Gives back what a rate-limit script took, when another cluster slot refused the same call or did
-- not answer it.
-- KEYS: the identifiers' strings that were charged, then the refund's marker (same slot); ARGV[1..3]:
-- see ratelimit_windows; ARGV[4]: the algorithm (fixed-window | sliding-window | token-bucket);
-- ARGV[5]: how long the marker is kept, in ms.
-- A retried refund finds its marker and changes nothing: it is applied once. Returns 1 when this call
-- gave back, 0 when an earlier one had. A key that expired is left alone.
--#include ratelimit_windows
local marker = KEYS[#KEYS]
if not call('SET', marker, '1', 'NX', 'PX', ARGV[5]) then
  return 0
end
local arguments, cost, n, format = read_arguments()
local token_bucket = ARGV[4] == 'token-bucket'
for k = 1, #KEYS - 1 do
  local state, records = read_windows(KEYS[k], format, n, arguments)
  if records > 0 then
    for j = 1, n do
      local limit, period = arguments[2 * j], arguments[2 * j + 1]
      local r = find_window(state, records, period)
      if r and token_bucket then
        state[r + 1] = state[r + 1] - cost * period / limit
      elseif r then
        state[r + 2] = math.max(state[r + 2] - cost, 0)
      end
    end
    write_windows(KEYS[k], string.rep('<dddd', records), state, 4 * records, nil)
  end
end
return 1
