-- Acquires a lock and hands out its fencing token, in one round trip.
-- KEYS[1] the lock, KEYS[2] its fencing counter, KEYS[3] its "someone waits" flag (one hash tag)
-- ARGV[1] the holder's random token, ARGV[2] the lease in ms, ARGV[3] the counter's TTL in ms,
-- ARGV[4] how long the caller is still willing to wait in ms (0 = it will not wait),
-- ARGV[5] optional: '1' when other callers of the caller's process still wait after it
-- (a release wakes one waiter per process: the flag keeps the next release publishing)
-- Returns the fencing token (> 0) when acquired, else minus the lock's remaining lease in ms
-- (0 = it just expired: try again at once).
--#include numbers
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  -- the token is Redis time in microseconds, or one more than the last token when that is
  -- higher: so tokens keep increasing when the counter expired, and when a failover
  -- promoted a replica that never saw the last ones (as long as the replica's clock is
  -- not behind the old master's by more than the failover took)
  local now = redis.call('TIME')
  local fence = tonumber(now[1]) * 1000000 + tonumber(now[2])
  -- SET ... GET (Redis 6.2+) writes the clock and reads the last token in one command
  local last = tonumber(redis.call('SET', KEYS[2], exact(fence), 'PX', ARGV[3], 'GET'))
  if last and last >= fence then
    fence = last + 1
    redis.call('SET', KEYS[2], exact(fence), 'PX', ARGV[3])
  end
  if ARGV[5] == '1' then
    redis.call('SET', KEYS[3], '1', 'PX', ARGV[2])
  end
  return fence
end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  -- this very acquisition, delivered again (its reply was lost and the client sent the call
  -- again on a new connection): it holds the lock, with the lease the first delivery set and
  -- the token it was handed, the last one (nobody else acquired since)
  local last = redis.call('GET', KEYS[2])
  if last then
    return tonumber(last)
  end
end
local remaining = redis.call('PTTL', KEYS[1])
if remaining < 0 then
  remaining = 0
end
local wait = tonumber(ARGV[4])
if wait > 0 then
  -- tells the holder's release to publish: nobody pays for PUBLISH when nobody waits
  redis.call('SET', KEYS[3], '1', 'PX', exact(math.max(remaining, wait, 1)))
end
return -remaining
