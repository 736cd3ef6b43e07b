-- Applies one increment to this region's slot of a counter and queues it for the peers, in
-- one atomic call: a change is never applied without being queued, nor queued without being
-- applied.
-- KEYS[1] the counter hash (see region_slots), KEYS[2] the outbox sequence (INCR),
-- KEYS[3] the outbox stream, KEYS[4] (optional) the record of this increment's operation id,
-- generated per call: a copy the client sends again after a reconnect (issue 43) answers
-- what the first answered and neither counts nor ships anything (this region only)
-- ARGV[1] this region, ARGV[2] delta (signed integer), ARGV[3] outbox bound (MAXLEN ~),
-- ARGV[4] the counter name as the user gave it (peers rebuild its key from it),
-- ARGV[5] how long the record of KEYS[4] is kept (ms)
-- The outbox entry carries this region's ABSOLUTE p and n after the change (state, not the
-- delta): a peer keeps max(old, new) of each, so duplicates, replays and reordering can
-- never count anything twice.
-- Returns {total of every region's slots as seen here, sequence of the entry}
--#include region_slots
if KEYS[4] then
  local first = redis.call('GET', KEYS[4])
  if first then
    local seen, sequence = string.match(first, '^(%-?%d+)|(%d+)$')
    return {tonumber(seen), tonumber(sequence)}
  end
end
local region = ARGV[1]
local delta = tonumber(ARGV[2])
local p, n
if delta >= 0 then
  p = redis.call('HINCRBY', KEYS[1], 'p:' .. region, ARGV[2])
  n = tonumber(redis.call('HGET', KEYS[1], 'n:' .. region) or '0')
else
  n = redis.call('HINCRBY', KEYS[1], 'n:' .. region, exact(-delta))
  p = tonumber(redis.call('HGET', KEYS[1], 'p:' .. region) or '0')
end
-- no TTL on any of these keys: counters live until deleted, the sequence must never restart
-- and the stream is bounded by MAXLEN instead (see docs/multi-region.md)
local seq = ship(KEYS[2], KEYS[3], ARGV[3], ARGV[4], p, n)
local seen = total(KEYS[1])
if KEYS[4] then
  redis.call('SET', KEYS[4], exact(seen) .. '|' .. exact(seq), 'PX', ARGV[5])
end
return {seen, seq}
