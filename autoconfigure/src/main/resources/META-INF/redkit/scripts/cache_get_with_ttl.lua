-- Reads a cache entry and its remaining time to live in one round trip (early refresh).
-- KEYS[1] entry key. Returns {value or false, remaining milliseconds (-2 missing, -1 no TTL)}.
local value = redis.call('GET', KEYS[1])
return { value, redis.call('PTTL', KEYS[1]) }
