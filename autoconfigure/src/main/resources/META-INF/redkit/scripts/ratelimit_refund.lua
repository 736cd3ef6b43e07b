-- Gives back what a rate-limit script consumed, when another cluster slot denied the same call.
-- KEYS: the keys the call consumed; ARGV: cost, algorithm (fixed-window | sliding-window | token-bucket),
-- n (windows), then limit_j, period_ms_j for each window. Best effort: a key that expired or moved on
-- to another window is left alone.
local cost = tonumber(ARGV[1])
local algorithm = ARGV[2]
local n = tonumber(ARGV[3])
for k = 1, #KEYS do
  local j = (k - 1) % n + 1
  if algorithm == 'token-bucket' then
    local tat = tonumber(redis.call('GET', KEYS[k]))
    if tat then
      local interval = tonumber(ARGV[3 + 2 * j]) / tonumber(ARGV[2 + 2 * j])
      local ttl = redis.call('PTTL', KEYS[k])
      if ttl > 0 then
        redis.call('SET', KEYS[k], string.format('%.3f', tat - cost * interval), 'PX', ttl)
      end
    end
  else
    local count = tonumber(redis.call('HGET', KEYS[k], 'c'))
    if count then
      redis.call('HSET', KEYS[k], 'c', math.max(count - cost, 0))
    end
  end
end
return 1
