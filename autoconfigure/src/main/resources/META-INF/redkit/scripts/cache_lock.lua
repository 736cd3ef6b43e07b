-- Single-flight lock of one cache entry: only one instance computes a missing value.
-- KEYS[1] lock key; ARGV[1] owner token; ARGV[2] lease in milliseconds.
-- Returns 1 when this caller now owns the lock, 0 when someone else does.
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 1
end
-- the caller's own token: its call, applied already and sent again by the client after a
-- reconnect (issue 43), or a retry; it holds the lock, with the lease the first one set
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return 1
end
return 0
