-- Releases a single-flight lock only when the caller still owns it (compare and delete).
-- KEYS[1] lock key; ARGV[1] owner token. Returns 1 when released, 0 otherwise.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
