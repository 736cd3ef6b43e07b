-- Test script: touches every key (they must share a slot) and returns Redis' time in ms.
local t = redis.call('TIME')
for i, key in ipairs(KEYS) do
  redis.call('SET', key, ARGV[1], 'PX', 60000)
end
return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
