-- Shared by the stream queue scripts (included with --#include): a take of a stream entry is
-- its entry id, the consumer (the Redkit instance) that took it and its delivery count, which
-- every XREADGROUP and XAUTOCLAIM of the entry bumps; a consumer may settle or extend only the
-- take it got, never a later one: the entry claimed again after its visibility timeout, even
-- by the same consumer, or released and taken again by another consumer (a release gives the
-- delivery back, so the next take has the same count: only the consumer tells them apart).
-- A take of a Redkit message also names the message: a rollback of Redis' state while its
-- clock is behind the stream's last id makes XADD hand the next message the entry id a
-- message sent after the snapshot had (it counts on from the restored last id), and its take
-- the same count, so the holder of the message the rollback undid would settle the other
-- one: an acknowledgement would delete a message nobody handled.

-- The group's consumer that holds the retries until they are claimed again: a retry is no
-- longer its holder's take (a late call of it finds another consumer), and no instance is
-- named so (theirs are "redkit-<random id>", with a dot).
local RETRIES = 'redkit-retries'

-- Whether an entry's element (false: not a Redkit element) is the message's: it begins with
-- the message id, then its headers or its delivery count.
local function is_element_of(element, message)
  if not element or string.find(element, message, 1, true) ~= 1 then
    return false
  end
  -- '|' or ';' (no substring made: this runs once per acknowledged take)
  local after = string.byte(element, #message + 1)
  return after == 124 or after == 59
end

-- Whether the entry still holds the message: its element begins with the message id. ''
-- names none (a stream another application writes, whose message id is the entry id). An
-- entry deleted while pending (trimmed) holds nothing of another message: its pending
-- record may be settled. Also returns the entry read, false when it was deleted, nil when
-- none was read (no message named).
local function holds(stream, id, message)
  if message == nil or message == '' then
    return true, nil
  end
  local entry = redis.call('XRANGE', stream, id, id)[1]
  if not entry then
    return true, false
  end
  local fields = entry[2]
  return is_element_of(fields[1] == 'e' and fields[2], message), entry
end

-- Whether the entry is pending for this consumer with this delivery count and still holds
-- the message; false once acknowledged, claimed again, its stream or group deleted (a
-- purge), or its id given to another message (a rollback). Also returns the entry as
-- holds() read it.
local function owned(stream, group, id, deliveries, consumer, message)
  local pending = redis.pcall('XPENDING', stream, group, id, id, 1)
  if type(pending) ~= 'table' or pending.err or pending[1] == nil then
    return false
  end
  if pending[1][2] ~= consumer or tonumber(pending[1][4]) ~= tonumber(deliveries) then
    return false
  end
  return holds(stream, id, message)
end

-- Whether an entry owned() answered for is still in the stream (not deleted by a writer's
-- trim), read only if owned() did not read it.
local function in_stream(stream, id, entry)
  if entry == nil then
    entry = redis.call('XRANGE', stream, id, id)[1]
  end
  return entry and true or false
end

-- Of the takes in takes[from], takes[from + 1], takes[from + 2] (entry id, delivery count,
-- message id), ..., in id order (the caller sorts them: comparing ids here cost a fifth of a
-- batch's Lua time): the ids of those still pending for this consumer with that count and
-- still holding that message, each once. A batch is looked up with one XPENDING over its
-- ids' range, reading twice as many entries as it has (the range may hold other takes too);
-- an id not in a reply that was cut short is looked up alone.
local function owned_ids(stream, group, takes, from, consumer)
  local ids = {}
  if #takes < from + 2 then
    return ids
  end
  if #takes == from + 2 then
    if owned(stream, group, takes[from], takes[from + 1], consumer, takes[from + 2]) then
      ids[1] = takes[from]
    end
    return ids
  end
  local low, high = takes[from], takes[#takes - 2]
  local limit = 2 * (#takes - from + 1) / 3
  local pending = redis.pcall('XPENDING', stream, group, low, high, string.format('%.0f', limit))
  if type(pending) ~= 'table' or pending.err then
    return ids
  end
  local counts = {}
  for i = 1, #pending do
    local p = pending[i]
    if p[2] == consumer then
      -- an integer reply: a number already
      counts[p[1]] = p[4]
    end
  end
  local cut = #pending >= limit
  -- the entries' elements, with one XRANGE over the same range when a take names its message
  -- (an entry not in a reply cut short is read alone)
  local named = false
  for i = from + 2, #takes, 3 do
    if takes[i] ~= '' then
      named = true
      break
    end
  end
  local entries = named and redis.call('XRANGE', stream, low, high, 'COUNT', string.format('%.0f', limit)) or {}
  local elements = {}
  for i = 1, #entries do
    local entry = entries[i]
    local fields = entry[2]
    elements[entry[1]] = (fields[1] == 'e' and fields[2]) or false
  end
  local read_all = not named or #entries < limit
  local previous
  for i = from, #takes - 2, 3 do
    local id = takes[i]
    -- in id order: a take listed twice comes next to itself
    if id ~= previous then
      previous = id
      local deliveries = counts[id]
      local message = takes[i + 2]
      local held
      local element = elements[id]
      if element ~= nil or read_all then
        held = message == '' or element == nil or is_element_of(element, message)
      else
        held = holds(stream, id, message)
      end
      if held and ((deliveries == nil and cut and owned(stream, group, id, takes[i + 1], consumer, message))
          or (deliveries ~= nil and deliveries == tonumber(takes[i + 1]))) then
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
    local chunk = (#ids <= 500) and ids or { unpack(ids, first, math.min(#ids, first + 499)) }
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

-- Now in ms on the Redis clock.
local function redis_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Closes the claim scan's gate (cursor: the claim cursor) until at (ms on the Redis clock),
-- or opens it when that is now or the next ms: a key lives through the very ms its expiry
-- names, and a take given back becomes claimable from the ms its idle time reaches the
-- visibility timeout, so the gate expires the ms before, and a take at that ms claims it
-- instead of reading new entries. The time is absolute, read before the commands that give a
-- take back or measure its idle time: Redis 6.2 and 7.0 read each command's time from the
-- clock as it runs, so an expiry set relative to a later command would end a ms late
-- should the script cross one; read before, it ends early at most (a scan more).
local function close_gate_until(cursor, at, now)
  if at - 1 <= now then
    redis.call('DEL', cursor)
  else
    redis.call('SET', cursor, 'done', 'PXAT', exact(at - 1))
  end
end

-- Opens the claim scan's gate (queue_stream_take.lua; cursor: the claim cursor) at at (ms on
-- the Redis clock, from check_gate's time), when a take released or retried (id, with the
-- deliveries it is left with) becomes claimable: a take then claims it before reading new
-- entries, instead of up to a tenth of the visibility timeout later. When it becomes
-- claimable is also kept under due, a sorted set of "<id> <deliveries>" kept for keep ms,
-- so that a pass under way, or one that ends before then, does not close the gate past it
-- (close_gate in queue_stream_take.lua).
-- Reads the keys open_gate writes before a script's first write: another writer's value
-- there fails the script (WRONGTYPE) before it changes anything; returns now, read before the
-- take is given back (close_gate_until).
local function check_gate(cursor, due)
  redis.call('GET', cursor)
  redis.call('ZCARD', due)
  return redis_ms()
end

local function open_gate(cursor, due, id, deliveries, at, keep)
  redis.call('ZADD', due, exact(at), id .. ' ' .. deliveries)
  redis.call('PEXPIRE', due, exact(keep))
  if redis.call('GET', cursor) ~= 'done' then
    return
  end
  -- shortened, never lengthened: a gate closed for less (a tenth of the visibility
  -- timeout) keeps its end; its time to live is read on the clock now, and at least what
  -- TIME just read, so a gate that ends later is shortened
  local now = redis_ms()
  if at - 1 <= now then
    redis.call('DEL', cursor)
  elseif now + redis.call('PTTL', cursor) >= at - 1 then
    redis.call('PEXPIREAT', cursor, exact(at - 1))
  end
end

-- Acknowledges one entry and deletes it (as remove_all).
local function remove(stream, group, id, ackdel)
  remove_all(stream, group, { id }, ackdel)
end
