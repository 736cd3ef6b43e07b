-- Shared by the rate-limit scripts (included with --#include).
--
-- Arguments: ARGV[1] the policy's numbers as little-endian doubles: cost, then limit_j and
-- period_ms_j of each window; ARGV[2] the struct format of ARGV[1]; ARGV[3] the struct format of
-- an identifier's records when they match the policy. Packed numbers cost Redis one struct.unpack
-- instead of a string-to-number conversion each.
--
-- State: an identifier's windows are one string of records of four little-endian doubles,
-- period_ms first, then three numbers whose meaning is the algorithm's. One GET and one SET cost
-- Redis a third of a hash's HMGET + HSET + PEXPIRE, and the records survive a change of the
-- policy's windows by their period.
--
-- Reply: allowed (1 or 0), remaining, retry_after_ms, reset_after_ms (until the limiting window
-- gives back a permit; 0 when it holds none), the limiting window (0-based), the Redis time of
-- the decision in ms and the windows that refused (bit j - 1 for window j), packed as seven
-- little-endian doubles: cheaper for Redis than an array reply. The time lets a give-back find
-- what the decision took.

--#include numbers
local call, struct_pack, struct_unpack = redis.call, struct.pack, struct.unpack

-- Whether the call is charged whatever the windows hold: a negative cost charges its amount, the
-- excess of a call settled above what it took (see read_arguments).
local forced = false

-- The policy's numbers (cost, then limit and period of each window), the cost, how many windows
-- and the format of records that match them.
local function read_arguments()
  local numbers = { struct_unpack(ARGV[2], ARGV[1]) }
  local cost = numbers[1]
  if cost < 0 then
    cost, forced = -cost, true
  end
  -- struct.unpack also returns the position after the last number
  return numbers, cost, (#numbers - 2) / 2, ARGV[3]
end

-- Redis' clock in milliseconds, with the fraction.
local function redis_time_ms()
  local time = call('TIME')
  return time[1] * 1000 + time[2] / 1000
end

-- Reads the records of a key: the numbers, how many records, and whether the j-th record holds
-- the policy's j-th window for every j (then no search is needed); missing or malformed reads
-- as none. A record is four doubles unless `record` (its struct format) and `stride` (its numbers)
-- say otherwise, as the sliding window's records do.
local function read_windows(key, format, n, arguments, record, stride)
  record, stride = record or '<dddd', stride or 4
  local stored = call('GET', key)
  local size = struct.size(record)
  if not stored or #stored % size ~= 0 then
    return {}, 0, false
  end
  local records = #stored / size
  if records ~= n then
    return { struct_unpack('<' .. string.rep(record:sub(2), records), stored) }, records, false
  end
  local numbers = { struct_unpack(format, stored) }
  for j = 1, n do
    if numbers[stride * (j - 1) + 1] ~= arguments[2 * j + 1] then
      return numbers, records, false
    end
  end
  return numbers, records, true
end

-- The position of the record of a period (the numbers follow it), or nil.
local function find_window(numbers, records, period, stride)
  stride = stride or 4
  for r = 1, stride * records, stride do
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

-- The reply: seven little-endian doubles; `refused` holds true at the index of each window that
-- refused the call.
local function reply(allowed, remaining, retry, reset, limiting, now, refused)
  local mask = 0
  for j in pairs(refused) do
    mask = mask + 2 ^ (j - 1)
  end
  return struct_pack('<ddddddd', allowed, remaining, retry, reset, limiting, now, mask)
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
