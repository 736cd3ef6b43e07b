-- Extends a lock's lease only for its holder.
-- KEYS[1] the lock
-- ARGV[1] the holder's token, ARGV[2] the new lease in ms (from now)
-- Returns 1 when extended, 0 when the caller no longer held it.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
