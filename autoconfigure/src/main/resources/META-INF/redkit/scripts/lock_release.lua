-- Releases a lock only for its holder, and wakes the waiters if anyone waits.
-- KEYS[1] the lock, KEYS[2] its "someone waits" flag (one hash tag)
-- ARGV[1] the holder's token
-- Returns 1 when released, 0 when the caller no longer held it.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
-- the lock and the flag in one DEL: 2 means someone waits
if redis.call('DEL', KEYS[1], KEYS[2]) == 2 then
  -- the channel is named after the lock key
  redis.call('PUBLISH', KEYS[1], '')
end
return 1
