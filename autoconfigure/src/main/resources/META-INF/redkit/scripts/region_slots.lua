-- Shared by the region scripts: a regional counter is a hash with two grow-only fields per
-- region, 'p:<region>' (everything added) and 'n:<region>' (everything subtracted).
-- Sums are exact below 2^53 and sent as exact text, never with tostring.
--#include core_numbers

-- the total of a counter's fields as HGETALL returns them, and this region's p and n among them
local function sum(fields, region)
  local total, p, n = 0, 0, 0
  for i = 1, #fields, 2 do
    local kind = string.sub(fields[i], 1, 2)
    if kind == 'p:' then
      total = total + tonumber(fields[i + 1])
    elseif kind == 'n:' then
      total = total - tonumber(fields[i + 1])
    end
    if fields[i] == 'p:' .. region then
      p = tonumber(fields[i + 1])
    elseif fields[i] == 'n:' .. region then
      n = tonumber(fields[i + 1])
    end
  end
  return total, p, n
end

local function total(key)
  return (sum(redis.call('HGETALL', key), ''))
end

-- Appends one counter's slot of this region to the outbox; the sequence orders and
-- identifies it (see region_counter_increment for why an entry carries state, not a delta).
-- ttl (ms, optional) is how long the counter lives: peers expire their copy that long after
-- they apply it (later by the lag: an expiry here only frees memory, it decides nothing).
local function ship(sequence, outbox, bound, counter, p, n, ttl)
  local seq = redis.call('INCR', sequence)
  if ttl then
    redis.call('XADD', outbox, 'MAXLEN', '~', bound, '*', 'seq', exact(seq), 'counter', counter,
      'p', exact(p), 'n', exact(n), 'ttl', exact(ttl))
  else
    redis.call('XADD', outbox, 'MAXLEN', '~', bound, '*', 'seq', exact(seq), 'counter', counter,
      'p', exact(p), 'n', exact(n))
  end
  return seq
end
