-- Acknowledges handled messages of a stream queue (one XPENDING over their range, one XACK
-- and one XDEL) and takes up to a batch: first the entries whose visibility timeout passed
-- (XAUTOCLAIM, Redis 6.2+), then new ones (XREADGROUP), the consumer group created on first
-- use (from the stream's start, so that messages sent before any consumer are delivered).
-- The take is named by the caller, so that the same take sent again by the client after a
-- reconnect (Lettuce re-sends a command written but not answered) is recognised: a take
-- that acknowledged or took something keeps "<acked>[ <claimed id> <deliveries>]...[|<first
-- id read> <last id read> <count read>]" under KEYS[3] for the replay window (the entries
-- XREADGROUP read are the stream's entries between the first and the last, each with one
-- delivery); a replay acknowledges, claims and reads nothing more (a
-- second XREADGROUP would hand new entries to a reply nobody reads, pending until their
-- visibility timeout with a delivery counted) and answers the entries of the first reply
-- that this consumer still holds with the same delivery count, within their visibility.
-- The claim scan is gated: a take scans while a pass over the pending entries is under way
-- or when it finds nothing new to read; a pass that reached the end closes the gate for a
-- tenth of the visibility timeout, so that a busy queue's take reads the cursor instead of
-- scanning, and an expired take is claimed at most that much later than its timeout (plus
-- the takes a pass over a long pending list needs); a take given back (a retry, a release)
-- is claimed when due: the gate closes no longer than until then.
-- KEYS[1] stream, KEYS[2] the claim cursor: where the last XAUTOCLAIM stopped (it scans at
-- most ten entries per message asked for), so that the next take goes on from there and an
-- expired take behind many held ones is reached within a few takes; kept for the visibility
-- timeout (missing, the scan starts again from the first pending entry); 'done' while the
-- gate is closed; KEYS[3] this take's record "once:<take>"; KEYS[4] when the takes a retry
-- or a release gave back are due (queue_stream_owned.lua's open_gate)
-- ARGV[1] group, ARGV[2] consumer, ARGV[3] visibility timeout ms, ARGV[4] batch size,
-- ARGV[5] '1' = the server has XACKDEL ('keep' = acknowledge only: a stream another
-- application writes), ARGV[6] the replay window ms, ARGV[7] '1' = a stream another
-- application writes: entries are handed out as their fields and a missing group is an
-- error (made at start-up only), ARGV[8..] takes to acknowledge, in id order: entry id,
-- deliveries, message id ('' = a stream another application writes).
-- Returns { acknowledged, wait ms, the entries read (one delivery each): id, element, ... in one
-- flat array (an array of 100 strings costs Redis far less to answer than XREADGROUP's 101
-- nested arrays handed back; in a stream another application writes, XREADGROUP's own reply:
-- { id, fields } each), then per entry claimed: id, deliveries, element (or the entry's
-- fields, an array) }; wait ms
-- (when nothing was taken) is how long until the earliest pending entry may be claimed
-- again, -1 when none is pending (0 for a replay whose entries are no longer held: take
-- again at once). A replay's reply ends with one integer after its entries: how many ms the
-- entries it answers have been held (their idle time: the first take delivered them, and
-- its answer reached nobody), from which the caller times their visibility.
--#include core_numbers
--#include queue_stream_owned
--#include queue_stream_claim
local stream, group, consumer = KEYS[1], ARGV[1], ARGV[2]
local visibility = tonumber(ARGV[3])
local max = tonumber(ARGV[4])

local function element(fields)
  if ARGV[7] == '1' then
    return fields
  end
  if fields[1] == 'e' and fields[2] then
    return fields[2]
  end
  -- not written by Redkit: handed out whole, to be dead-lettered
  return table.concat(fields, ' ')
end

-- A Redkit queue's entries read, as id, element, id, element, ...
local function flat(entries)
  local ids_and_elements = {}
  for i = 1, #entries do
    local entry = entries[i]
    local fields = entry[2]
    ids_and_elements[2 * i - 1] = entry[1]
    ids_and_elements[2 * i] = (fields[1] == 'e' and fields[2]) or element(fields)
  end
  return ids_and_elements
end

-- the record and the claim cursor in one read
local keys_read = redis.call('MGET', KEYS[3], KEYS[2])
local record = keys_read[1]
if record then
  -- this very take, sent again: answer what this consumer still holds of its first reply
  local claims, range = string.match(record, '^([^|]*)|?(.*)$')
  local out = { tonumber(string.match(claims, '^%d+')), 0, {} }
  -- how long the entries answered have been held (idle since the first take delivered them)
  local held = 0
  for id, deliveries in string.gmatch(claims, ' (%S+) (%d+)') do
    -- a purge deleted the stream or its group: nothing is held
    local pending = redis.pcall('XPENDING', stream, group, id, id, 1)
    pending = type(pending) == 'table' and not pending.err and pending[1]
    if pending and pending[2] == consumer and tonumber(pending[4]) == tonumber(deliveries)
        and tonumber(pending[3]) < visibility then
      local entry = redis.call('XRANGE', stream, id, id)[1]
      if entry then
        out[#out + 1] = id
        out[#out + 1] = pending[4]
        out[#out + 1] = element(entry[2])
        held = math.max(held, tonumber(pending[3]))
      end
    end
  end
  local first, last, count = string.match(range, '^(%S+) (%S+) (%d+)$')
  if first then
    -- the entries read: those of the range this consumer still holds with one delivery
    local pending = redis.pcall('XPENDING', stream, group, first, last, exact(tonumber(count)), consumer)
    if type(pending) == 'table' and not pending.err and pending[1] then
      local idle = {}
      for _, p in ipairs(pending) do
        if tonumber(p[4]) == 1 and tonumber(p[3]) < visibility then
          idle[p[1]] = tonumber(p[3])
        end
      end
      for _, entry in ipairs(redis.call('XRANGE', stream, first, last)) do
        if idle[entry[1]] then
          out[#out + 1] = entry[1]
          out[#out + 1] = 1
          out[#out + 1] = element(entry[2])
          held = math.max(held, idle[entry[1]])
        end
      end
    end
  end
  out[#out + 1] = held
  return out
end

local acked = 0
if #ARGV >= 10 then
  local ids = owned_ids(stream, group, ARGV, 8, consumer)
  remove_all(stream, group, ids, ARGV[5])
  acked = #ids
end

local out = { acked, -1, {} }
-- what the record keeps of this take: " <id> <deliveries>" per entry claimed
local taken_ids = {}
local taken = 0

-- Closes the claim scan's gate once a pass reached the end of the pending entries: for a
-- tenth of the visibility timeout, or until the earliest take given back and not claimed
-- since becomes claimable, if sooner; one claimable already (behind where the pass began)
-- leaves it open, so that the next take scans from the first pending entry. A take given
-- back and extended since (idle again: its holder kept it) becomes claimable once idle for
-- the visibility timeout, not when it was due: it is due again then, so that it keeps the
-- gate neither open nor closed past an earlier one. Those settled or claimed since are
-- removed on the way; it looks at GATE_LOOKS of them at most (a flood of retries settled
-- since), and should the last one looked at be settled, the gate closes no later than the
-- next one is due (stays open if that is now): the next pass looks on.
local GATE_LOOKS = 100
local function close_gate()
  -- read before the idle times below (close_gate_until)
  local now = redis_ms()
  local ms = math.max(1, math.floor(visibility / 10))
  local heads = redis.call('ZRANGE', KEYS[4], 0, exact(GATE_LOOKS - 1), 'WITHSCORES')
  if not heads[1] then
    close_gate_until(KEYS[2], now + ms, now)
    return
  end
  local gone = {}
  local looked = 0
  for i = 1, #heads, 2 do
    local due = tonumber(heads[i + 1]) - now
    if due >= ms then
      -- this one and those after it are claimable no sooner than the gate opens
      break
    end
    looked = looked + 1
    local id, deliveries = string.match(heads[i], '^(%S+) (%d+)$')
    local pending = id and redis.pcall('XPENDING', stream, group, id, id, 1)
    pending = type(pending) == 'table' and not pending.err and pending[1]
    if not pending or tonumber(pending[4]) > tonumber(deliveries) then
      -- settled, or claimed since
      gone[#gone + 1] = heads[i]
    else
      local wait = math.max(due, visibility - tonumber(pending[3]))
      if wait <= 0 then
        if #gone > 0 then
          redis.call('ZREM', KEYS[4], unpack(gone))
        end
        redis.call('DEL', KEYS[2])
        return
      end
      if wait > due then
        redis.call('ZADD', KEYS[4], 'XX', exact(now + wait), heads[i])
      end
      ms = math.min(ms, wait)
    end
  end
  if #gone > 0 then
    redis.call('ZREM', KEYS[4], unpack(gone))
  end
  if looked == GATE_LOOKS then
    -- more to look at than it may: the next one is not known to be held yet
    local next = redis.call('ZRANGE', KEYS[4], 0, 0, 'WITHSCORES')
    if next[1] then
      local due = tonumber(next[2]) - now
      if due <= 0 then
        redis.call('DEL', KEYS[2])
        return
      end
      ms = math.min(ms, due)
    end
  end
  close_gate_until(KEYS[2], now + ms, now)
end

-- Claims takes past their visibility timeout, scanning the pending entries from a cursor
-- id; the cursor then says where the next scan goes on, or 'done' when this one reached
-- the end: no take scans again while the gate is closed (close_gate), unless it finds
-- nothing new to read. Returns an error reply to answer, if any.
local function claim(cursor)
  local claimed = autoclaim(stream, group, consumer, ARGV[3], cursor, max)
  if type(claimed) == 'table' and claimed.err then
    if ARGV[7] == '1' or not string.find(claimed.err, 'NOGROUP', 1, true) then
      return redis.error_reply(claimed.err)
    end
    redis.call('XGROUP', 'CREATE', stream, group, '0', 'MKSTREAM')
    claimed = { '0-0', {} }
  end
  for _, entry in ipairs(claimed[2]) do
    local id = type(entry) == 'table' and entry[1]
    local fields = id and entry[2]
    if type(fields) == 'table' then
      local pending = redis.call('XPENDING', stream, group, id, id, 1)
      out[#out + 1] = id
      out[#out + 1] = pending[1][4]
      out[#out + 1] = element(fields)
      taken_ids[#taken_ids + 1] = ' ' .. id .. ' ' .. exact(pending[1][4])
      taken = taken + 1
    elseif id then
      -- deleted while pending (trimmed): nothing to deliver
      redis.call('XACK', stream, group, id)
    end
  end
  -- the ids in claimed[3] were deleted while pending (trimmed) and are no longer pending:
  -- nothing is left to deliver, the message was lost by the trim
  -- (after the entries claimed are noted: the take's record keeps them, should this fail)
  if claimed[1] == '0-0' then
    close_gate()
  else
    redis.call('SET', KEYS[2], claimed[1], 'PX', ARGV[3])
  end
  return nil
end

-- Claims and reads: the take after its acknowledgements.
local function take()
  local cursor = keys_read[2]
  local scanned = cursor ~= 'done'
  if scanned then
    local failed = claim(cursor or '0-0')
    if failed then
      return failed
    end
  end
  if taken < max then
    local read = redis.pcall('XREADGROUP', 'GROUP', group, consumer, 'COUNT', exact(max - taken), 'STREAMS', stream, '>')
    if type(read) == 'table' and read.err then
      -- the group deleted (a purge) while the gate was closed: made again by a scan
      if scanned or not string.find(read.err, 'NOGROUP', 1, true) then
        return redis.error_reply(read.err)
      end
      read = nil
    end
    if read then
      -- the record keeps the range (its entries are those read)
      local entries = read[1][2]
      if #entries > 0 then
        out[3] = (ARGV[7] == '1') and entries or flat(entries)
        taken = taken + #entries
        taken_ids[#taken_ids + 1] = '|' .. entries[1][1] .. ' ' .. entries[#entries][1] .. ' ' .. exact(#entries)
      end
    end
  end
  if taken == 0 and not scanned then
    -- nothing new to read: an expired take is claimed now, not when the gate opens
    local failed = claim('0-0')
    if failed then
      return failed
    end
  end
  if taken > 0 or acked > 0 then
    -- idle polls write nothing (nothing for replicas and the append-only file)
    redis.call('SET', KEYS[3], exact(acked) .. table.concat(taken_ids), 'PX', ARGV[6])
  end
  if taken == 0 then
    -- the earliest of a few pending entries: a wait no longer than it (poll-timeout bounds it)
    local pending = redis.call('XPENDING', stream, group, '-', '+', 10)
    for _, p in ipairs(pending) do
      local wait = math.max(0, visibility - tonumber(p[3]))
      if out[2] < 0 or wait < out[2] then
        out[2] = wait
      end
    end
  end
  return out
end

-- An error after the acknowledgements were applied (another writer's value at one of this
-- take's keys) still records what the take did, so that the take sent again under its name
-- answers it rather than reporting the acknowledgements late; without acknowledgements or
-- claims it applied nothing, and records nothing
local ok, reply = pcall(take)
if ok and not (type(reply) == 'table' and reply.err) then
  return reply
end
if acked > 0 or taken > 0 then
  redis.call('SET', KEYS[3], exact(acked) .. table.concat(taken_ids), 'PX', ARGV[6])
end
if ok then
  return reply
end
-- raised by redis.call: a table with the error (Redis 7+) or its text
return redis.error_reply((type(reply) == 'table' and reply.err) or (type(reply) == 'string' and reply)
    or 'ERR queue_stream_take failed')
