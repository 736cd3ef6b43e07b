-- Acquires a lock and hands out its fencing token, in one round trip: TIME and one
-- SET ... GET that writes the new holder and reads the record it replaced; a second SET only
-- when the replaced record must stay (another holder, this very acquisition delivered twice,
-- a clock behind the last token).
-- KEYS[1] the lock's record (see lock_record.lua: read and written inline here, with struct),
-- KEYS[2] where a lock of the previous layout is remembered (see lock_record.lua)
-- ARGV[1] the holder's random token, ARGV[2] the lease in ms, ARGV[3] how long the record
-- lives in ms: the lease and then more (it keeps the last fencing token),
-- ARGV[4] how long the caller is still willing to wait in ms (0 = it will not wait),
-- ARGV[5] optional: '1' when other callers of the caller's process still wait after it
-- (a release wakes one waiter per process: the flag keeps the next release publishing)
-- Returns the fencing token (> 0) when acquired, else minus the lock's remaining lease in ms.
-- No function and no string.format on the way of an acquisition: the arguments go to PX as
-- they came. A number computed here goes to PX through '%.0f': a lease may run for
-- centuries, and Redis would write 10^17 ms and more with an exponent.
local time = redis.call('TIME')
-- Redis time in µs: below 2^53, exact in Lua's numbers
local now = time[1] * 1000000 + time[2]
local ends = now + ARGV[2] * 1000
local waits = (ARGV[5] == '1') and 1 or 0
-- the token is Redis time in microseconds, or one more than the last token when that is
-- higher: so tokens keep increasing when the record expired, and when a failover promoted a
-- replica that never saw the last ones (as long as the replica's clock is not behind the old
-- master's by more than the failover took)
local old = redis.call('SET', KEYS[1], struct.pack('<BddBs', 1, now, ends, waits, ARGV[1]), 'PX', ARGV[3], 'GET')
if not old then
  return now
end
if string.byte(old) ~= 1 then
  -- a lock of the previous layout (a plain token), held by an instance not upgraded yet:
  -- put back (its holder's release or extension still matches it) and wait for its holder
  -- like for any other. Its own TTL is lost with the SET: it gets the record's, counted
  -- from the first time an upgraded instance met this token (KEYS[2] keeps the token that
  -- long), so that waiters trying again never push a crashed holder's end further
  local ttl = ARGV[3]
  if redis.call('GET', KEYS[2]) == old then
    ttl = string.format('%.0f', math.max(1, redis.call('PTTL', KEYS[2])))
  else
    redis.call('SET', KEYS[2], old, 'PX', ttl)
  end
  redis.call('SET', KEYS[1], old, 'PX', ttl)
  return -tonumber(ttl)
end
local _, fence, oldEnds, oldWaits, holder = struct.unpack('<BddBs', old)
if holder ~= '' and oldEnds > now then
  -- the remaining lease in ms, rounded up: at least 1 while it has not ended
  local remaining = math.ceil((oldEnds - now) / 1000)
  local outlives = ARGV[3] - ARGV[2]
  if holder == ARGV[1] then
    -- this very acquisition, delivered again (its reply was lost and the client sent the
    -- call again on a new connection): it holds the lock, with the lease the first delivery
    -- set and the token it was handed
    redis.call('SET', KEYS[1], old, 'PX', string.format('%.0f', remaining + outlives))
    return fence
  end
  if oldWaits == 0 and tonumber(ARGV[4]) > 0 then
    -- tells the holder's release to publish: nobody pays for PUBLISH when nobody waits
    old = struct.pack('<BddBs', 1, fence, oldEnds, 1, holder)
  end
  redis.call('SET', KEYS[1], old, 'PX', string.format('%.0f', remaining + outlives))
  return -remaining
end
-- free (released, or its lease ended); a flag it kept is dropped: every waiter sets it
-- again with its next attempt, at the latest when the lease it saw ends
if fence >= now then
  fence = fence + 1
  redis.call('SET', KEYS[1], struct.pack('<BddBs', 1, fence, ends, waits, ARGV[1]), 'PX', ARGV[3])
  return fence
end
return now
