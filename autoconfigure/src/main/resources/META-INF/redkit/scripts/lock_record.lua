-- Shared by the lock scripts (included with --#include): a lock's one record, the string
-- '<fencing token>|<holder's token, empty when free>|<lease end, Redis time in µs>|<1 when
-- someone waits, else empty>'. The key lives the lease and then ARGV's "outlives" more, so
-- that the last fencing token survives the lease. Every field is a number or a token this
-- library draws (no '|' in it): a lock's name is only in the key, never in the value.
local function record(fence, holder, ends, waits)
  return exact(fence) .. '|' .. holder .. '|' .. exact(ends) .. '|' .. waits
end

-- The fields of a stored record, or nil when there is none or it is not a record: a plain
-- token is a lock of the previous layout (an instance not upgraded yet; its lease was the
-- key's TTL, its fencing counter another key).
local function parse(value)
  if not value then
    return nil
  end
  local fence, holder, ends, waits = string.match(value, '^(%d+)|([^|]*)|(%d+)|(1?)$')
  if not fence then
    return nil
  end
  return tonumber(fence), holder, tonumber(ends), waits
end

-- Redis time in microseconds: below 2^53, exact in Lua's numbers.
local function micros()
  local now = redis.call('TIME')
  return tonumber(now[1]) * 1000000 + tonumber(now[2])
end

-- Milliseconds left until a lease end in µs, rounded up: at least 1 while it has not ended.
local function millisUntil(ends, now)
  return math.max(0, math.ceil((ends - now) / 1000))
end
