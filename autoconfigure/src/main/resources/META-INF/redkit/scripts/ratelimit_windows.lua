-- Shared by the rate-limit scripts (included with --#include): an identifier's windows are one
-- string of records of four little-endian doubles, period_ms first, then three numbers whose
-- meaning is the algorithm's. One GET and one SET cost Redis a third of a hash's HMGET + HSET +
-- PEXPIRE, and the records survive a change of the policy's windows by their period.

-- Reads the records of a key: the numbers and how many records; missing or malformed reads as none.
local function read_windows(key, format, n)
  local stored = redis.call('GET', key)
  if not stored or #stored % 32 ~= 0 then
    return {}, 0
  end
  local records = #stored / 32
  return { struct.unpack(records == n and format or string.rep('<dddd', records), stored) }, records
end

-- The position of the record of a period (the numbers follow it), or nil; j is where the policy's
-- j-th window was written, unless the policy's windows changed since.
local function find_window(numbers, records, period, j)
  if numbers[4 * j - 3] == period then
    return 4 * j - 3
  end
  for r = 1, 4 * records, 4 do
    if numbers[r] == period then
      return r
    end
  end
  return nil
end

-- Writes the records of a key with a new expiry in ms, or keeping the current one when ttl is nil.
local function write_windows(key, value, ttl)
  if ttl then
    redis.call('SET', key, value, 'PX', ttl)
  else
    redis.call('SET', key, value, 'KEEPTTL')
  end
end
