-- Releases a lock only for its holder, and wakes the waiters if anyone waits; or, forced (an
-- operator through the redkit endpoint), whoever holds it, and wakes its waiters.
-- Unforced, one SET ... GET writes the freed record and reads the one it replaced; a second
-- SET (and TIME) only when the caller no longer held the lock and the record must stay.
-- KEYS[1] the lock's record (see lock_record)
-- ARGV[1] the holder's token, ARGV[2] its fencing token ('0' when the caller does not know
-- it), ARGV[3] how long the record outlives the lease in ms, ARGV[4] optional: 'force' to
-- release whoever holds the lock
-- Returns 1 when released (forced: when the lock was held), 0 when the caller no longer held
-- it (forced: when nobody held it).
--#include numbers
--#include lock_record
if ARGV[4] == 'force' then
  -- one script: no acquire can slip between the release and the wake-up
  local old = redis.call('GET', KEYS[1])
  if not old then
    return 0
  end
  local fence, holder, ends = parse(old)
  if not fence then
    -- a lock of the previous layout
    redis.call('DEL', KEYS[1])
  elseif holder == '' or ends <= micros() then
    return 0
  else
    -- the fencing token stays
    redis.call('SET', KEYS[1], record(fence, '', 0, ''), 'KEEPTTL')
  end
  -- waiters also retry on their own; a forced release wakes them whatever the flag says
  redis.call('PUBLISH', KEYS[1], '')
  return 1
end
local outlives = tonumber(ARGV[3])
local old = redis.call('SET', KEYS[1], record(tonumber(ARGV[2]), '', 0, ''), 'PX', exact(outlives), 'GET')
local fence, holder, ends, waits = parse(old)
if not fence or holder ~= ARGV[1] then
  -- not the caller's (any more): the record stays as it was, with its fencing token, and
  -- at least as long as its holder's lease
  if old then
    local ttl = outlives
    if fence and holder ~= '' then
      ttl = millisUntil(ends, micros()) + outlives
    end
    redis.call('SET', KEYS[1], old, 'PX', exact(ttl))
  end
  return 0
end
-- a holder whose lease ran out with nobody taking the lock since still holds it: released
if ARGV[2] == '0' then
  -- a release sent after an acquire whose answer never came: its token is the record's
  redis.call('SET', KEYS[1], record(fence, '', 0, ''), 'PX', exact(outlives))
end
if waits == '1' then
  -- the channel is named after the lock key
  redis.call('PUBLISH', KEYS[1], '')
end
return 1
