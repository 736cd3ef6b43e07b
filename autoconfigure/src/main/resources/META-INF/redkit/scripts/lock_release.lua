-- Releases a lock only for its holder, and wakes the waiters if anyone waits; or, forced (an
-- operator through the redkit endpoint), whoever holds it, and wakes its waiters.
-- Unforced, one SET ... GET writes the freed record and reads the one it replaced; a second
-- SET (and TIME) only when the caller no longer held the lock and the record must stay.
-- KEYS[1] the lock's record (see lock_record.lua: read and written inline here, with struct),
-- KEYS[2] where a lock of the previous layout is remembered (see lock_record.lua; not read
-- when forced), KEYS[3] optional: the token of the last holder whose release woke waiters,
-- kept for the replay window (absent in a 0.1.0 instance's call: nothing kept)
-- ARGV[1] the holder's token, ARGV[2] its fencing token ('0' when the caller does not know
-- it), ARGV[3] how long the record outlives the lease in ms, ARGV[4] 'force' to release
-- whoever holds the lock, else empty or absent, ARGV[5] optional, not read here: the lease
-- end the holder expects in the record, for the release's native form (a SET IFEQ that
-- frees the record when it is exactly the holder's, with nobody waiting; see
-- ReleaseIfUnchanged), whose nil answer sends this script, ARGV[6] optional: how long
-- KEYS[3] is kept in ms (the replay window; nothing is kept when absent)
-- Returns 1 when released (forced: when the lock was held), 0 when the caller no longer held
-- it (forced: when nobody held it).
-- A release the client sends again after a reconnect (issue 43) answers 1 again: the freed
-- record keeps the releaser's token with a lease end of 0 (free for every script of this
-- layout, 0.1.0's too: a lock is held only while its lease end is ahead), and a release that
-- woke waiters, one of which may take the lock before the copy arrives, leaves KEYS[3].
-- No function and no string.format on the way of a release: the arguments go to PX as they
-- came. A number computed here goes to PX through '%.0f': a lease may run for centuries, and
-- Redis would write 10^17 ms and more with an exponent.
if ARGV[4] == 'force' then
  -- one script: no acquire can slip between the release and the wake-up
  local old = redis.call('GET', KEYS[1])
  if not old then
    return 0
  end
  if string.byte(old) ~= 1 then
    -- a lock of the previous layout
    redis.call('DEL', KEYS[1])
  else
    local _, fence, ends, _, holder = struct.unpack('<BddBs', old)
    local time = redis.call('TIME')
    if holder == '' or ends <= time[1] * 1000000 + time[2] then
      return 0
    end
    -- the fencing token stays
    redis.call('SET', KEYS[1], struct.pack('<BddBs', 1, fence, 0, 0, ''), 'KEEPTTL')
  end
  -- waiters also retry on their own; a forced release wakes them whatever the flag says
  redis.call('PUBLISH', KEYS[1], '')
  return 1
end
local old = redis.call('SET', KEYS[1], struct.pack('<BddBs', 1, ARGV[2], 0, 0, ARGV[1]), 'PX', ARGV[3], 'GET')
local _, fence, ends, waits, holder
if old and string.byte(old) == 1 then
  _, fence, ends, waits, holder = struct.unpack('<BddBs', old)
end
if holder == ARGV[1] then
  -- a holder whose lease ran out with nobody taking the lock since still holds it: released
  if ARGV[2] == '0' then
    -- a release sent after an acquire whose answer never came: its token is the record's
    redis.call('SET', KEYS[1], struct.pack('<BddBs', 1, fence, 0, 0, ARGV[1]), 'PX', ARGV[3])
  end
  if waits == 1 then
    -- the channel is named after the lock key
    redis.call('PUBLISH', KEYS[1], '')
    if KEYS[3] and ARGV[6] then
      redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[6])
    end
  end
  return 1
end
-- not the caller's (any more): the record stays as it was, with its fencing token, and at
-- least as long as its holder's lease
if old then
  local ttl = tonumber(ARGV[3])
  if not holder then
    -- a lock of the previous layout: its end counted from the first time an upgraded
    -- instance met its token (see lock_acquire.lua)
    if redis.call('GET', KEYS[2]) == old then
      ttl = math.max(1, redis.call('PTTL', KEYS[2]))
    else
      redis.call('SET', KEYS[2], old, 'PX', ARGV[3])
    end
  elseif holder ~= '' then
    local time = redis.call('TIME')
    ttl = ttl + math.max(0, math.ceil((ends - (time[1] * 1000000 + time[2])) / 1000))
  end
  redis.call('SET', KEYS[1], old, 'PX', string.format('%.0f', ttl))
else
  -- nothing was there (the record expired): a free record that names nobody, so that a copy
  -- of this call answers 0 as this one does
  redis.call('SET', KEYS[1], struct.pack('<BddBs', 1, ARGV[2], 0, 0, ''), 'PX', ARGV[3])
end
if KEYS[3] and redis.call('GET', KEYS[3]) == ARGV[1] then
  -- a copy of a release that woke a waiter which has taken the lock since
  return 1
end
return 0
