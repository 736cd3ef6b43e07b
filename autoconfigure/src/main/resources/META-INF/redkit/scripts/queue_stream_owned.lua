-- Shared by the stream queue scripts (included with --#include): a take of a stream entry is
-- its entry id, the consumer (the Redkit instance) that took it and its delivery count, which
-- every XREADGROUP and XAUTOCLAIM of the entry bumps; a consumer may settle or extend only the
-- take it got, never a later one: the entry claimed again after its visibility timeout, even
-- by the same consumer, or released and taken again by another consumer (a release gives the
-- delivery back, so the next take has the same count: only the consumer tells them apart).

-- Whether the entry is pending for this consumer with this delivery count; false once
-- acknowledged, claimed again, or its stream or group deleted (a purge).
local function owned(stream, group, id, deliveries, consumer)
  local pending = redis.pcall('XPENDING', stream, group, id, id, 1)
  if type(pending) ~= 'table' or pending.err or pending[1] == nil then
    return false
  end
  return pending[1][2] == consumer and tonumber(pending[1][4]) == tonumber(deliveries)
end

-- Acknowledges an entry and deletes it: XACKDEL where the server was found to have it ('1':
-- Redis 8.2+), else (or should it refuse) XACK and XDEL; the stream keeps only what is ready
-- or in flight. 'keep' acknowledges only: a stream another application writes keeps its
-- entries (other groups may read them).
local function remove(stream, group, id, ackdel)
  if ackdel == 'keep' then
    redis.call('XACK', stream, group, id)
    return
  end
  if ackdel == '1' then
    local done = redis.pcall('XACKDEL', stream, group, 'IDS', 1, id)
    if type(done) ~= 'table' or not done.err then
      return
    end
  end
  redis.call('XACK', stream, group, id)
  redis.call('XDEL', stream, id)
end
