-- A lock's one record: struct.pack('<BddBs', 1, fence, leaseEnd, waits, holder), that is a
-- version byte 1, the fencing token and the lease end (Redis time in µs; both below 2^53, so
-- exact as doubles) as little-endian doubles, 1 when someone waits else 0, and the holder's
-- token, empty when free, ending with a zero byte: 19 bytes and the token. Built and read
-- with Redis' struct library (C) rather than with string patterns and formats: the lock
-- scripts pay less Redis CPU for it than the previous layout did for its three keys.
-- The key lives the lease and then "outlives" more, so that the last fencing token survives
-- the lease. A lock's name is only in the key, never in the value. A value whose first byte
-- is not 1 is a plain token: a lock of the previous layout (an instance not upgraded yet;
-- its lease was the key's TTL, its fencing counter another key); tokens are printable.
-- Its TTL is lost when a script's SET ... GET reads it: every script that meets it puts it
-- back with the TTL counted from the first time an upgraded instance met that token, which
-- a second key (the record's key and ":previous", same hash tag) remembers, holding the
-- token for that long. So a crashed holder of the previous layout is waited for at most the
-- lease and an hour after the first sighting, however often waiters try; its holder's own
-- extension (PEXPIRE) is kept only until an upgraded script meets the token again.
-- lock_acquire and lock_release, the hot path, read and write the record inline: Redis builds
-- every function of a script (of its includes too) again on each call.
-- Shared by the other lock scripts (included with --#include).

-- The record's bytes; waits is 1 or 0.
local function record(fence, holder, ends, waits)
  return struct.pack('<BddBs', 1, fence, ends, waits, holder)
end

-- The fields of a stored record, or nil when there is none or it is of the previous layout.
local function parse(value)
  if not value or string.byte(value) ~= 1 then
    return nil
  end
  local _, fence, ends, waits, holder = struct.unpack('<BddBs', value)
  return fence, holder, ends, waits
end

-- Redis time in microseconds: below 2^53, exact in Lua's numbers.
local function micros()
  local now = redis.call('TIME')
  return now[1] * 1000000 + now[2]
end

-- Milliseconds left until a lease end in µs, rounded up: at least 1 while it has not ended.
local function millisUntil(ends, now)
  return math.max(0, math.ceil((ends - now) / 1000))
end
