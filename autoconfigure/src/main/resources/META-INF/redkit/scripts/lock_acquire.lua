-- Acquires a lock and hands out its fencing token, in one round trip: TIME and one
-- SET ... GET that writes the new holder and reads the record it replaced; a second SET only
-- when the replaced record must stay (another holder, this very acquisition delivered twice,
-- a clock behind the last token).
-- KEYS[1] the lock's record (see lock_record)
-- ARGV[1] the holder's random token, ARGV[2] the lease in ms, ARGV[3] how long the record
-- outlives the lease in ms (it keeps the last fencing token),
-- ARGV[4] how long the caller is still willing to wait in ms (0 = it will not wait),
-- ARGV[5] optional: '1' when other callers of the caller's process still wait after it
-- (a release wakes one waiter per process: the flag keeps the next release publishing)
-- Returns the fencing token (> 0) when acquired, else minus the lock's remaining lease in ms.
--#include numbers
--#include lock_record
local now = micros()
local lease = tonumber(ARGV[2])
local outlives = tonumber(ARGV[3])
local ends = now + lease * 1000
local waits = (ARGV[5] == '1') and '1' or ''
-- the token is Redis time in microseconds, or one more than the last token when that is
-- higher: so tokens keep increasing when the record expired, and when a failover promoted a
-- replica that never saw the last ones (as long as the replica's clock is not behind the old
-- master's by more than the failover took)
local old = redis.call('SET', KEYS[1], record(now, ARGV[1], ends, waits), 'PX', exact(lease + outlives), 'GET')
if not old then
  return now
end
local fence, holder, oldEnds, oldWaits = parse(old)
if not fence then
  -- a lock of the previous layout, held by an instance not upgraded yet: put back (its own
  -- TTL is lost with the SET, so it gets the record's; its holder's release or extension
  -- still matches it) and wait for its holder like for any other
  redis.call('SET', KEYS[1], old, 'PX', exact(lease + outlives))
  return -(lease + outlives)
end
if holder ~= '' and oldEnds > now then
  local remaining = millisUntil(oldEnds, now)
  if holder == ARGV[1] then
    -- this very acquisition, delivered again (its reply was lost and the client sent the
    -- call again on a new connection): it holds the lock, with the lease the first delivery
    -- set and the token it was handed
    redis.call('SET', KEYS[1], old, 'PX', exact(remaining + outlives))
    return fence
  end
  if tonumber(ARGV[4]) > 0 then
    -- tells the holder's release to publish: nobody pays for PUBLISH when nobody waits
    oldWaits = '1'
  end
  redis.call('SET', KEYS[1], record(fence, holder, oldEnds, oldWaits), 'PX', exact(remaining + outlives))
  return -remaining
end
-- free (released, or its lease ended); a flag it kept is dropped: every waiter sets it
-- again with its next attempt, at the latest when the lease it saw ends
if fence >= now then
  fence = fence + 1
  redis.call('SET', KEYS[1], record(fence, ARGV[1], ends, waits), 'PX', exact(lease + outlives))
  return fence
end
return now
