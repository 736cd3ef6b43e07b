-- Single-flight lock of one cache entry: only one instance computes a missing value.
-- KEYS[1] lock key; ARGV[1] owner token; ARGV[2] lease in milliseconds.
-- Returns 1 when this caller now owns the lock, 0 when someone else does.
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 1
end
return 0
