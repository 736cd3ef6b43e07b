-- Releases a lock only for its holder, and wakes the waiters if anyone waits; or, forced (an
-- operator through the redkit endpoint), whoever holds it, and wakes its waiters.
-- KEYS[1] the lock, KEYS[2] its "someone waits" flag (one hash tag)
-- ARGV[1] the holder's token, ARGV[2] optional: 'force' to release whoever holds the lock
-- Returns 1 when released (forced: when the lock was held), 0 when the caller no longer held
-- it (forced: when nobody held it).
if ARGV[2] == 'force' then
  -- one script: no acquire can slip between the delete and the wake-up
  local held = redis.call('DEL', KEYS[1])
  redis.call('DEL', KEYS[2])
  if held == 1 then
    -- waiters also retry on their own; a forced release wakes them whatever the flag says
    redis.call('PUBLISH', KEYS[1], '')
  end
  return held
end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
-- the lock and the flag in one DEL: 2 means someone waits
if redis.call('DEL', KEYS[1], KEYS[2]) == 2 then
  -- the channel is named after the lock key
  redis.call('PUBLISH', KEYS[1], '')
end
return 1
