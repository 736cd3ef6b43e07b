-- Shared by the stream take (included with --#include): XAUTOCLAIM answered as Redis 7.0+
-- answers it, on every supported server. Redis 6.2 claims a pending entry deleted from the
-- stream (a writer's trim: MAXLEN, XTRIM, XDEL) as a bare nil and keeps it pending for the
-- claimer for ever; a nil does not say which entry it was, and the claimer may hold deleted
-- entries of its own in the same range (live takes, which must stay their holders'). 7.0+
-- drops such an entry from the pending list itself and lists its id apart. On 6.2 (its Lua
-- has no redis.REDIS_VERSION_NUM, added in 7.0) the claim is made of the same steps by id:
-- the pending entries from the cursor, at most ten per entry asked for (as XAUTOCLAIM scans,
-- 6.2 included), those idle for min_idle claimed with one XCLAIM (which counts a delivery as
-- XAUTOCLAIM does), and those it answers nil for acknowledged and listed apart.
-- min_idle: ms as text (an argument), count: a number.
-- Returns { the next cursor ('0-0' when the scan reached the end), the entries claimed,
-- the ids of the deleted entries dropped from the pending list }, or the error reply.
local function autoclaim(stream, group, consumer, min_idle, cursor, count)
  if redis.REDIS_VERSION_NUM then
    return redis.pcall('XAUTOCLAIM', stream, group, consumer, min_idle, cursor, 'COUNT', exact(count))
  end
  local scan = 10 * count
  local pending = redis.pcall('XPENDING', stream, group, cursor, '+', exact(scan + 1))
  if pending.err then
    return pending
  end
  local ids, last = {}, math.min(#pending, scan)
  for i = 1, last do
    if tonumber(pending[i][3]) >= tonumber(min_idle) then
      ids[#ids + 1] = pending[i][1]
      if #ids == count then
        last = i
        break
      end
    end
  end
  local next = pending[last + 1] and pending[last + 1][1] or '0-0'
  local entries, deleted = {}, {}
  if #ids > 0 then
    -- one reply per id, in order: each is pending and idle enough
    local claimed = redis.call('XCLAIM', stream, group, consumer, min_idle, unpack(ids))
    for i, id in ipairs(ids) do
      if claimed[i] then
        entries[#entries + 1] = claimed[i]
      else
        deleted[#deleted + 1] = id
      end
    end
    if #deleted > 0 then
      redis.call('XACK', stream, group, unpack(deleted))
    end
  end
  return { next, entries, deleted }
end
