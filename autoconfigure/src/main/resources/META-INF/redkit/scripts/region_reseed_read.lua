-- Reads this region's own slot of a page of counters for a re-seed (see RegionReseeder), in
-- one round trip, with the outbox's position at that moment: the slots are exactly what the
-- outbox says up to that position, so the peer may take it as its high-water mark of this
-- region. A re-seed that moved no mark left the peers holding slots beyond their mark, and a
-- recovery after a step back counted those calls again.
-- KEYS[1] the outbox sequence, KEYS[2] the outbox, KEYS[3..] the counters of one shard
-- ARGV[1] this region
-- Returns {position '<sequence>|<newest stream id>' ('0' while the outbox is empty), then per
--          counter its p, its n ('' when it has none) and its PTTL}
local newest = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local position = '0'
if #newest > 0 then
  position = (redis.call('GET', KEYS[1]) or '0') .. '|' .. newest[1][1]
end
local reply = {position}
for i = 3, #KEYS do
  local slot = redis.call('HMGET', KEYS[i], 'p:' .. ARGV[1], 'n:' .. ARGV[1])
  table.insert(reply, slot[1] or '')
  table.insert(reply, slot[2] or '')
  table.insert(reply, redis.call('PTTL', KEYS[i]))
end
return reply
