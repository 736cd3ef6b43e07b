-- Reads a control group's version and values atomically (never a version of one write
-- with the values of another). KEYS[1] values hash; KEYS[2] version counter.
-- Returns {version (0 when never set), field1, value1, ...}.
local version = tonumber(redis.call('GET', KEYS[2]) or '0')
local result = { version }
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields do
  result[#result + 1] = fields[i]
end
return result
