-- Extends a lock's lease only for its holder: TIME and one SET ... GET that writes the new
-- lease end and reads the record it replaced; a second SET only when someone waits (the flag
-- stays) or the caller no longer held the lock (the record stays as it was).
-- KEYS[1] the lock's record (see lock_record), KEYS[2] where a lock of the previous layout
-- is remembered (see lock_record)
-- ARGV[1] the holder's token, ARGV[2] the new lease in ms (from now), ARGV[3] its fencing
-- token, ARGV[4] how long the record outlives the lease in ms
-- Returns the Redis time the lease was extended at in µs when extended (the caller computes
-- the record's new lease end from it, for the release's native form), 0 when the caller no
-- longer held it.
--#include core_numbers
--#include lock_record
local now = micros()
local lease = tonumber(ARGV[2])
local outlives = tonumber(ARGV[4])
local fence = tonumber(ARGV[3])
local ends = now + lease * 1000
local old = redis.call('SET', KEYS[1], record(fence, ARGV[1], ends, 0), 'PX', exact(lease + outlives), 'GET')
local oldFence, holder, oldEnds, waits = parse(old)
if oldFence and holder == ARGV[1] and oldEnds > now then
  if waits == 1 then
    redis.call('SET', KEYS[1], record(fence, ARGV[1], ends, 1), 'KEEPTTL')
  end
  return now
end
if not old then
  -- nothing was there (the record expired): leave a free one, not a held one
  redis.call('SET', KEYS[1], record(fence, '', 0, 0), 'PX', exact(outlives))
elseif oldFence and holder ~= '' and oldEnds > now then
  redis.call('SET', KEYS[1], old, 'PX', exact(millisUntil(oldEnds, now) + outlives))
elseif oldFence then
  -- free: as it was
  redis.call('SET', KEYS[1], old, 'PX', exact(outlives))
else
  -- of the previous layout: as it was, until the end its first sighting set (see
  -- lock_record)
  local ttl = lease + outlives
  if redis.call('GET', KEYS[2]) == old then
    ttl = math.max(1, redis.call('PTTL', KEYS[2]))
  else
    redis.call('SET', KEYS[2], old, 'PX', exact(ttl))
  end
  redis.call('SET', KEYS[1], old, 'PX', exact(ttl))
end
return 0
