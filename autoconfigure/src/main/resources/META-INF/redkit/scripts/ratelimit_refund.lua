-- Gives back what a rate-limit script took, when another cluster slot refused the same call.
-- KEYS: the identifiers' strings that were charged (see ratelimit_windows);
-- ARGV: cost, algorithm (fixed-window | sliding-window | token-bucket), n (windows), then
-- limit_j, period_ms_j for each window.
-- Best effort: a key that expired, or a window that moved on, is left alone.
--#include ratelimit_windows
local cost = tonumber(ARGV[1])
local token_bucket = ARGV[2] == 'token-bucket'
local n = tonumber(ARGV[3])
for k = 1, #KEYS do
  local format = string.rep('<dddd', n)
  local state, records = read_windows(KEYS[k], format, n)
  if records > 0 then
    for j = 1, n do
      local limit, period = tonumber(ARGV[2 + 2 * j]), tonumber(ARGV[3 + 2 * j])
      local r = find_window(state, records, period, j)
      if r and token_bucket then
        state[r + 1] = state[r + 1] - cost * period / limit
      elseif r then
        state[r + 2] = math.max(state[r + 2] - cost, 0)
      end
    end
    format = string.rep('<dddd', records)
    write_windows(KEYS[k], struct.pack(format, unpack(state, 1, 4 * records)), nil)
  end
end
return 1
