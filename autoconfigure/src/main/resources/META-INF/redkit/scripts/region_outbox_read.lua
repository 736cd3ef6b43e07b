-- Reads the next batch of the local outbox for one peer, after the position last shipped to it.
-- KEYS[1] the outbox stream, KEYS[2] the outbox sequence, KEYS[3] the position shipped to
-- this peer ("<stream id>|<sequence>")
-- KEYS[4] the lease of shipping to this peer (see region_lease), KEYS[5] this region's
-- incarnation (see region_recover), KEYS[6] the flag that the peer must be re-seeded
-- ARGV[1] batch size, ARGV[2] this instance's id, ARGV[3] the lease (ms), '' to read without it
--#include region_lease
--#include region_incarnation
-- Returns {-2} when this Redis has no incarnation (new, or it lost its data: region_recover
--         first), {-1} when another instance of this region holds the lease, else
--         {shipped sequence, last sequence written, Redis time ms, stream length, the re-seed
--          flag ('' when none), the incarnation, then 6 strings per entry: id, sequence,
--          counter, p, n, ttl ms ('0': none)}
-- A gap between the shipped sequence and the first entry's sequence means MAXLEN trimmed
-- entries this peer never received: the caller flags it.
local incarnation = redis.call('GET', KEYS[5])
if not incarnation then
  return {-2}
end
if not holdsIncarnation(KEYS[5]) then
  -- set before this Redis was started again: its data may be older than what was shipped
  redis.call('DEL', KEYS[5])
  return {-2}
end
if ARGV[3] ~= '' and not lease(KEYS[4], ARGV[2], ARGV[3]) then
  return {-1}
end
local shipped = redis.call('GET', KEYS[3]) or '0-0|0'
local id, shippedSeq = string.match(shipped, '^(%d+%-%d+)|(%d+)$')
local ms, sub = string.match(id, '^(%d+)%-(%d+)$')
-- the first id after the shipped one (XRANGE's exclusive '(' needs Redis 6.2)
local from = ms .. '-' .. string.format('%.0f', tonumber(sub) + 1)
local entries = redis.call('XRANGE', KEYS[1], from, '+', 'COUNT', ARGV[1])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local reply = {shippedSeq, redis.call('GET', KEYS[2]) or '0', string.format('%.0f', now),
  redis.call('XLEN', KEYS[1]), redis.call('GET', KEYS[6]) or '', incarnation}
for _, entry in ipairs(entries) do
  local fields = {}
  for i = 1, #entry[2], 2 do
    fields[entry[2][i]] = entry[2][i + 1]
  end
  table.insert(reply, entry[1])
  table.insert(reply, fields['seq'])
  table.insert(reply, fields['counter'])
  table.insert(reply, fields['p'])
  table.insert(reply, fields['n'])
  table.insert(reply, fields['ttl'] or '0')
end
return reply
