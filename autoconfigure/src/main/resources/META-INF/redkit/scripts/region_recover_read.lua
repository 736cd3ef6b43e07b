-- Reads one page of a peer's counters for a region that recovers its slots (see
-- region_recover), in one round trip: a SCAN page and every counter's fields and TTL. On a
-- cluster it runs on the node of the shard's hash tag, which holds all the shard's counters.
-- KEYS[1] the peer's own incarnation key, KEYS[2] the peer's high-water marks hash
-- ARGV[1] SCAN cursor, ARGV[2] COUNT, ARGV[3] MATCH pattern of the shard's counters,
-- ARGV[4] the recovering region
-- Returns {next cursor, 1 when the peer holds its incarnation, the peer's high-water mark of
--          the recovering region ('' when none), then per counter: key, PTTL, fields count,
--          then its fields and values}
--#include region_incarnation
local page = redis.call('SCAN', ARGV[1], 'MATCH', ARGV[3], 'COUNT', ARGV[2])
local reply = {page[1], holdsIncarnation(KEYS[1]) and 1 or 0, redis.call('HGET', KEYS[2], ARGV[4]) or ''}
for _, key in ipairs(page[2]) do
  local fields = redis.call('HGETALL', key)
  if #fields > 0 then
    table.insert(reply, key)
    table.insert(reply, redis.call('PTTL', key))
    table.insert(reply, #fields / 2)
    for _, value in ipairs(fields) do
      table.insert(reply, value)
    end
  end
end
return reply
