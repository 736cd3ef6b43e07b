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

-- Of the takes in takes[from], takes[from + 1] (entry id, delivery count), ..., in id order
-- (the caller sorts them: comparing ids here cost a fifth of a batch's Lua time): the ids of
-- those still pending for this consumer with that count, each once. A batch is looked up
-- with one XPENDING over its ids' range, reading twice as many entries as it has (the range
-- may hold other takes too); an id not in a reply that was cut short is looked up alone.
local function owned_ids(stream, group, takes, from, consumer)
  local ids = {}
  if #takes < from + 1 then
    return ids
  end
  if #takes == from + 1 then
    if owned(stream, group, takes[from], takes[from + 1], consumer) then
      ids[1] = takes[from]
    end
    return ids
  end
  local low, high = takes[from], takes[#takes - 1]
  local limit = #takes - from + 1
  local pending = redis.pcall('XPENDING', stream, group, low, high, string.format('%.0f', limit))
  if type(pending) ~= 'table' or pending.err then
    return ids
  end
  local counts = {}
  for _, p in ipairs(pending) do
    if p[2] == consumer then
      counts[p[1]] = tonumber(p[4])
    end
  end
  local cut = #pending >= limit
  local seen = {}
  for i = from, #takes - 1, 2 do
    local id = takes[i]
    if not seen[id] then
      seen[id] = true
      local deliveries = counts[id]
      if (deliveries == nil and cut and owned(stream, group, id, takes[i + 1], consumer))
          or (deliveries ~= nil and deliveries == tonumber(takes[i + 1])) then
        ids[#ids + 1] = id
      end
    end
  end
  return ids
end

-- Acknowledges entries and deletes them, a few hundred ids per command: XACKDEL where the
-- server was found to have it ('1': Redis 8.2+), else (or should it refuse) XACK and XDEL;
-- the stream keeps only what is ready or in flight. 'keep' acknowledges only: a stream
-- another application writes keeps its entries (other groups may read them).
local function remove_all(stream, group, ids, ackdel)
  for first = 1, #ids, 500 do
    local chunk = { unpack(ids, first, math.min(#ids, first + 499)) }
    local done
    if ackdel == '1' then
      done = redis.pcall('XACKDEL', stream, group, 'IDS', string.format('%.0f', #chunk), unpack(chunk))
      done = type(done) ~= 'table' or not done.err
    end
    if not done then
      redis.call('XACK', stream, group, unpack(chunk))
      if ackdel ~= 'keep' then
        redis.call('XDEL', stream, unpack(chunk))
      end
    end
  end
end

-- Opens the claim scan's gate (queue_stream_take.lua; cursor: the claim cursor) in ms, when
-- a take released or retried becomes claimable: a take then claims it before reading new
-- entries, instead of up to a tenth of the visibility timeout later. A pass under way (a
-- cursor id) is left alone: its takes scan anyway.
local function open_gate(cursor, ms)
  if redis.call('GET', cursor) ~= 'done' then
    return
  end
  if ms <= 0 then
    redis.call('DEL', cursor)
  elseif redis.call('PTTL', cursor) > ms then
    redis.call('PEXPIRE', cursor, string.format('%.0f', ms))
  end
end

-- Acknowledges one entry and deletes it (as remove_all).
local function remove(stream, group, id, ackdel)
  remove_all(stream, group, { id }, ackdel)
end
