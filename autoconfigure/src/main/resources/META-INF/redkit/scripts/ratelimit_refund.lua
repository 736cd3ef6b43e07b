-- Gives back what a rate-limit script took, when another cluster slot refused the same call.
-- KEYS: the identifiers' strings that were charged (records of four doubles, see the algorithms);
-- ARGV: cost, algorithm (fixed-window | sliding-window | token-bucket), n (windows), then
-- limit_j, period_ms_j for each window.
-- Best effort: a key that expired, or a window that moved on, is left alone.
local cost = tonumber(ARGV[1])
local token_bucket = ARGV[2] == 'token-bucket'
local n = tonumber(ARGV[3])
for k = 1, #KEYS do
  local stored = redis.call('GET', KEYS[k])
  if stored and #stored % 32 == 0 then
    local format = string.rep('<dddd', #stored / 32)
    local state = { struct.unpack(format, stored) }
    state[#state] = nil -- struct.unpack also returns the next position
    for j = 1, n do
      local limit, period = tonumber(ARGV[2 + 2 * j]), tonumber(ARGV[3 + 2 * j])
      for r = 1, #state, 4 do
        if state[r] == period then
          if token_bucket then
            state[r + 1] = state[r + 1] - cost * period / limit
          else
            state[r + 2] = math.max(state[r + 2] - cost, 0)
          end
        end
      end
    end
    redis.call('SET', KEYS[k], struct.pack(format, unpack(state)), 'KEEPTTL')
  end
end
return 1
