-- Force-releases a lock whoever holds it (the redkit endpoint), and wakes its waiters.
-- KEYS[1] the lock, KEYS[2] its "someone waits" flag (one hash tag)
-- Returns 1 when the lock was held, 0 when it was not.
-- One script: no acquire can slip between the delete and the wake-up, and the flag goes
-- with the lock, as in lock_release.lua.
local held = redis.call('DEL', KEYS[1])
redis.call('DEL', KEYS[2])
if held == 1 then
  -- the channel is named after the lock key; waiters also retry on their own
  redis.call('PUBLISH', KEYS[1], '')
end
return held
