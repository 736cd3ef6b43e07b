-- Shared by the rate-limit scripts that keep one record of four doubles per window (included with
-- --#include). Arguments and reply: see ratelimit_arguments.
--
-- State: an identifier's windows are one string of records of four little-endian doubles,
-- period_ms first, then three numbers whose meaning is the algorithm's. One GET and one SET cost
-- Redis a third of a hash's HMGET + HSET + PEXPIRE, and the records survive a change of the
-- policy's windows by their period.

--#include ratelimit_arguments
-- Redis' clock in milliseconds, with the fraction.
local function redis_time_ms()
  local time = call('TIME')
  return time[1] * 1000 + time[2] / 1000
end

-- Reads the records of a key: the numbers, how many records, and whether the j-th record holds
-- the policy's j-th window for every j (then no search is needed); missing or malformed reads
-- as none.
local function read_windows(key, format, n, arguments)
  local stored = call('GET', key)
  if not stored or #stored % 32 ~= 0 then
    return {}, 0, false
  end
  local records = #stored / 32
  if records ~= n then
    return { struct_unpack('<' .. string.rep('dddd', records), stored) }, records, false
  end
  local numbers = { struct_unpack(format, stored) }
  for j = 1, n do
    if numbers[4 * j - 3] ~= arguments[2 * j + 1] then
      return numbers, records, false
    end
  end
  return numbers, records, true
end

-- The position of the record of a period (the numbers follow it), or nil.
local function find_window(numbers, records, period)
  for r = 1, 4 * records, 4 do
    if numbers[r] == period then
      return r
    end
  end
  return nil
end

-- Writes the records of a key with a new expiry in ms, or keeping the current one when ttl is nil.
local function write_windows(key, format, numbers, count, ttl)
  local value = struct_pack(format, unpack(numbers, 1, count))
  if ttl then
    call('SET', key, value, 'PX', exact(ttl))
  else
    call('SET', key, value, 'KEEPTTL')
  end
end

-- The reply (see ratelimit_arguments); `refused` holds true at the index of each window that
-- refused the call.
local function reply(allowed, remaining, retry, reset, limiting, now, refused)
  local mask = 0
  for j in pairs(refused) do
    mask = mask + 2 ^ (j - 1)
  end
  return reply_of(allowed, remaining, retry, reset, limiting, now, mask)
end

-- Check all, then consume: writes every identifier's new records only when the call is allowed,
-- and packs the reply.
local function finish(allowed, states, ttls, format, count, remaining, retry, reset, limiting, now, refused)
  if allowed == 1 then
    for k = 1, #KEYS do
      write_windows(KEYS[k], format, states[k], count, ttls[k])
    end
  end
  return reply(allowed, remaining, retry, reset, limiting, now, refused)
end
