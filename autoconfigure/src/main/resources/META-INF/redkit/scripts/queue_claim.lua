-- Takes up to N messages of a queue for a consumer, atomically.
-- First the bounded reaper: in-flight messages whose deadline passed and delayed
-- messages that are due go (back) to the ready list; then up to N messages are popped
-- (one LPOP/RPOP with a count), each one's delivery count bumped, and each tracked
-- in-flight until now + visibility timeout (one ZADD for all): each is acknowledged,
-- failed, extended or expires on its own.
-- The reaper runs only when the next-due hint (KEYS[5], see queue_hint.lua) is not
-- trusted: a trusted hint says no score of either set is at or below now, so a take with
-- nothing due costs TIME, MGET (the hint and the take's record), LLEN and ZCARD (the type
-- checks), LPOP, ZADD and the record's SET (and the acknowledgements' ZREM). A take
-- that reaped and popped writes a fresh hint after reading both sets' earliest scores,
-- unless the reaper moved a full batch (more may be due: the next take reaps again).
-- An in-flight entry is "<take token>#<element>": the token, new at each take, tells
-- this take of a message from any other, so that a consumer that lost its message to
-- the visibility timeout can neither settle nor extend the take that followed, even one
-- of the very same element (a re-queued dead letter, a released message).
-- The token is chosen by the caller per take, so the same take sent again by the client
-- after a reconnect (Lettuce re-sends a command written but not answered) is recognised:
-- a take that popped or acknowledged something keeps "<deadline>:<acked>:<popped>" under
-- KEYS[6] for the replay window, read with the hint in one MGET; a replay pops and acks
-- nothing more and answers the entries still in flight under its token (found at their
-- deadline, in the set's order, not the pop order) while that deadline is ahead: the batch the caller never saw is
-- handed to it, not left in flight under a token nobody holds to come back with a
-- delivery counted.
-- KEYS[1] ready list, KEYS[2] in-flight zset (score = deadline), KEYS[3] delayed zset
-- (score = due time), KEYS[4] collapse hash (sha1(payload) -> pending delayed element),
-- KEYS[5] next-due hint, KEYS[6] this take's record "once:<token>"; a key of another type
-- than these fails the take with WRONGTYPE before it writes anything, whatever the hint
-- ARGV[1] '1' = LIFO (pop the tail) else FIFO, ARGV[2] visibility timeout ms,
-- ARGV[3] reaper batch size, ARGV[4] how many to take at most, ARGV[5] this take's
-- token (no '#', no '|'), ARGV[6] the replay window ms, ARGV[7..] optional: in-flight
-- entries to acknowledge first (a consumer acks what it handled and takes the next ones
-- in one round trip)
-- Returns {element, now (ms on the Redis clock), acked, more elements...} or {0, wait ms
-- until the next deadline/due time (-1 = none), acked}, the numbers as integers; acked
-- counts the ARGV[6..] that were still in flight and are now removed. The first field
-- tells the two apart: an element is a string, nothing claimed the integer 0 (an element
-- may be any string, '' and '0' included). Elements are "<id>|<deliveries>|<json>"; one
-- without a number between two '|' is handed out as it is. A replay that answers elements
-- ends its reply with one integer after them: how many ms ago the first take took them (it
-- was answered to nobody), from which the caller times their visibility.
--#include queue_hint
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local read = redis.call('MGET', KEYS[5], KEYS[6])
if read[2] then
  -- this very take, sent again: answer what is still in flight under its token
  local deadline, firstAcked, popped = string.match(read[2], '^(%d+):(%d+):(%d+)$')
  local taken = {}
  -- a take whose visibility ran out is the reaper's: it goes back to the ready list
  if popped and tonumber(popped) > 0 and tonumber(deadline) > now then
    local prefix = ARGV[5] .. '#'
    for _, e in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], exact(tonumber(deadline)), exact(tonumber(deadline)))) do
      if string.sub(e, 1, #prefix) == prefix then
        taken[#taken + 1] = string.sub(e, #prefix + 1)
      end
    end
  end
  local acks = tonumber(firstAcked) or 0
  if #taken == 0 then
    -- what it took came back (its visibility ran out): take again at once
    return { 0, 0, acks }
  end
  local reply = { taken[1], now, acks }
  for i = 2, #taken do
    reply[i + 2] = taken[i]
  end
  -- how long they have been in flight: their visibility timeout runs from the first take
  reply[#reply + 1] = math.max(0, now - (tonumber(deadline) - tonumber(ARGV[2])))
  return reply
end
local hint = tonumber(read[1])
local trusted = hint_trusted(hint, now)
-- another writer's value at a key this take reads or writes fails it before it changes
-- anything (an error after its first write would leave acknowledgements applied and
-- unreported, or an expired or popped message lost): each such key is read before the
-- first write, on every path, by cheap commands that answer WRONGTYPE
local ready = redis.call('LLEN', KEYS[1])
redis.call('ZCARD', KEYS[2])
-- a trusted hint's take with nothing ready reads only the delayed set's earliest (to answer
-- how long to wait): read here, before the acknowledgements; nil when not read here
local dueRead
if not trusted then
  redis.call('ZCARD', KEYS[3])
  local collapse = redis.call('TYPE', KEYS[4])
  collapse = collapse.ok or collapse
  if collapse ~= 'none' and collapse ~= 'hash' then
    return redis.error_reply('WRONGTYPE Operation against a key holding the wrong kind of value')
  end
elseif ready == 0 then
  dueRead = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
end
local acked = 0
if #ARGV >= 7 then
  acked = redis.call('ZREM', KEYS[2], unpack(ARGV, 7))
end
-- whether the reaper moved every score at or below now (so that a fresh hint may be written)
local reaped = false
if not trusted then
  local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', exact(now), 'LIMIT', 0, ARGV[3])
  for _, e in ipairs(expired) do
    redis.call('ZREM', KEYS[2], e)
    -- back without its take's token ('#' never occurs in an element's first field; an
    -- entry written before tokens existed has none)
    local h = string.find(e, '#', 1, true)
    local bar = string.find(e, '|', 1, true)
    if h and (not bar or h < bar) then
      e = string.sub(e, h + 1)
    end
    redis.call('RPUSH', KEYS[1], e)
  end

  local due = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', exact(now), 'LIMIT', 0, ARGV[3])
  if #due > 0 then
    local collapsing = redis.call('EXISTS', KEYS[4]) == 1
    for _, e in ipairs(due) do
      redis.call('ZREM', KEYS[3], e)
      redis.call('RPUSH', KEYS[1], e)
      local p1 = collapsing and string.find(e, '|', 1, true)
      local p2 = p1 and string.find(e, '|', p1 + 1, true)
      if p2 then
        local k = redis.sha1hex(string.sub(e, p2 + 1))
        if redis.call('HGET', KEYS[4], k) == e then
          redis.call('HDEL', KEYS[4], k)
        end
      end
    end
  end
  local batch = tonumber(ARGV[3])
  reaped = #expired < batch and #due < batch
end

-- the earliest score of each set (nil when empty): to write a fresh hint and to answer
-- how long to wait
local function earliest()
  local nextDue = dueRead or redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
  local nextDeadline = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return tonumber(nextDue[2]), tonumber(nextDeadline[2])
end

local popped
if ARGV[1] == '1' then
  popped = redis.call('RPOP', KEYS[1], ARGV[4])
else
  popped = redis.call('LPOP', KEYS[1], ARGV[4])
end
if not popped then
  -- no fresh hint here: idle consumers' polls write nothing (nothing for replicas and
  -- the append-only file); the next take that pops writes it
  local nextDue, nextDeadline = earliest()
  local wait = -1
  if nextDue then
    wait = nextDue - now
  end
  if nextDeadline then
    local w = nextDeadline - now
    if wait < 0 or w < wait then
      wait = w
    end
  end
  if wait == 0 then
    wait = 1
  end
  if acked > 0 then
    redis.call('SET', KEYS[6], '0:' .. exact(acked) .. ':0', 'PX', ARGV[6])
  end
  return { 0, wait, acked }
end

local deadline = now + tonumber(ARGV[2])
local score = exact(deadline)
local claimed = {}
local scored = {}
for i, e in ipairs(popped) do
  local p1 = string.find(e, '|', 1, true)
  local p2 = p1 and string.find(e, '|', p1 + 1, true)
  local deliveries = p2 and tonumber(string.sub(e, p1 + 1, p2 - 1))
  if deliveries then
    claimed[i] = string.sub(e, 1, p1) .. exact(deliveries + 1) .. string.sub(e, p2)
  else
    -- not a Redkit element (written by something else): handed out as it is, in flight
    -- like the others, for the caller to dead-letter; failing here would lose the batch
    -- already popped
    claimed[i] = e
  end
  scored[2 * i - 1] = score
  scored[2 * i] = ARGV[5] .. '#' .. claimed[i]
end
redis.call('ZADD', KEYS[2], unpack(scored))
redis.call('SET', KEYS[6], score .. ':' .. exact(acked) .. ':' .. exact(#claimed), 'PX', ARGV[6])
if reaped then
  -- every score left is above now: the hint is the ms before the earliest, at most
  -- HINT_MAX_AGE ahead
  local nextDue, nextDeadline = earliest()
  local at = now + HINT_MAX_AGE
  if nextDue and nextDue <= at then
    at = math.ceil(nextDue) - 1
  end
  if nextDeadline and nextDeadline <= at then
    at = math.ceil(nextDeadline) - 1
  end
  set_hint(KEYS[5], at)
elseif trusted then
  keep_hint_below(KEYS[5], hint, deadline, now)
end
local reply = { claimed[1], now, acked }
for i = 2, #claimed do
  reply[i + 2] = claimed[i]
end
return reply
