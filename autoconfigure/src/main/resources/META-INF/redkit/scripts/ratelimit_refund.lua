-- Gives back what a rate-limit script took, when another cluster slot refused the same call.
-- KEYS: the identifiers' strings that were charged; ARGV[1..3]: see ratelimit_windows; ARGV[4]:
-- the algorithm (fixed-window | sliding-window | token-bucket).
-- Best effort: a key that expired, or a window that moved on, is left alone.
--#include ratelimit_windows
local arguments, cost, n, format = read_arguments()
local token_bucket = ARGV[4] == 'token-bucket'
for k = 1, #KEYS do
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
