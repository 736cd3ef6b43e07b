-- Reads this region's own slot of a page of counters on its own Redis, in one round trip,
-- while it recovers (see region_recover): what each held before the peers are merged in.
-- KEYS counters of one shard
-- ARGV[1] this region
-- Returns per counter its p and n ('0' when none)
local reply = {}
for _, key in ipairs(KEYS) do
  local slot = redis.call('HMGET', key, 'p:' .. ARGV[1], 'n:' .. ARGV[1])
  table.insert(reply, slot[1] or '0')
  table.insert(reply, slot[2] or '0')
end
return reply
