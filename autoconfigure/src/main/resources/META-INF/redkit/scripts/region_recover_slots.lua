-- Reads this region's own slot of a page of counters on its own Redis, in one round trip,
-- while it recovers (see region_recover): what each held before the peers are merged in, and
-- what an earlier recovery left of it (its recovered-slot key).
-- KEYS the counters of one shard, then each one's recovered-slot key in the same order
-- ARGV[1] this region
-- Returns per counter its p and n ('0' when none) and its recovered slot ('' when none)
local reply = {}
local counters = #KEYS / 2
for i = 1, counters do
  local slot = redis.call('HMGET', KEYS[i], 'p:' .. ARGV[1], 'n:' .. ARGV[1])
  table.insert(reply, slot[1] or '0')
  table.insert(reply, slot[2] or '0')
  table.insert(reply, redis.call('GET', KEYS[i + counters]) or '')
end
return reply
