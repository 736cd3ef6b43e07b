-- Gives back what a rate-limit script took, when another cluster slot refused the same call.
-- KEYS: the identifiers' hashes that were charged; ARGV: cost, algorithm (fixed-window |
-- sliding-window | token-bucket), n (windows), then limit_j, period_ms_j for each window.
-- Best effort: a hash that expired, or a window that moved on, is left alone.
local cost = tonumber(ARGV[1])
local algorithm = ARGV[2]
local n = tonumber(ARGV[3])
for k = 1, #KEYS do
  for j = 1, n do
    local limit = tonumber(ARGV[2 + 2 * j])
    local period = ARGV[3 + 2 * j]
    if algorithm == 'token-bucket' then
      local tat = tonumber(redis.call('HGET', KEYS[k], period .. ':t'))
      if tat then
        local back = tat - cost * tonumber(period) / limit
        redis.call('HSET', KEYS[k], period .. ':t', string.format('%.3f', back))
      end
    else
      local count = tonumber(redis.call('HGET', KEYS[k], period .. ':c'))
      if count then
        redis.call('HSET', KEYS[k], period .. ':c', math.max(count - cost, 0))
      end
    end
  end
end
return 1
