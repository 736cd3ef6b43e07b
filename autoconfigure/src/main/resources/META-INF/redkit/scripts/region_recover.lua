-- Gives this region back its own slot of counters after its Redis lost them (restarted
-- without persistence, or replaced): the peers still hold the slot as it was last shipped to
-- them, the largest of which the caller passes here. It is ADDED to whatever this region
-- counted since the loss (new changes started again from zero), so nothing is hidden under
-- the old values and nothing counted since is lost. Until the incarnation key exists again no
-- replicator ships (region_outbox_read answers -2), so the peers still hold only the old
-- values while they are read. Each counter is recovered once: several instances recovering at
-- once, or one that dies half-way and a retry, skip what is done.
-- The other regions' slots, lost as well, come back the way a peer applies an entry: the larger
-- of what is here and what was read, so a peer need not notice the loss to re-seed this Redis.
-- KEYS[1] the incarnation key, KEYS[2] the counters recovered so far (a set), KEYS[3..] counters
-- ARGV[1] this region, ARGV[2] '1' on the last batch, then per counter: its TTL ms (0: none),
-- how many fields follow, then the fields and the largest value each peer held
-- Returns the number of counters whose own slot this call gave back (0 for a new region, whose
-- peers hold nothing of it), -1 when recovery was already done
if redis.call('EXISTS', KEYS[1]) == 1 then
  return -1
end
local pField, nField = 'p:' .. ARGV[1], 'n:' .. ARGV[1]
local recovered, at = 0, 3
for i = 3, #KEYS do
  local ttl, count = ARGV[at], tonumber(ARGV[at + 1])
  local first = at + 2
  at = first + count * 2
  if redis.call('SADD', KEYS[2], KEYS[i]) == 1 then
    local fresh, own = redis.call('EXISTS', KEYS[i]) == 0, false
    for f = first, first + count * 2 - 1, 2 do
      local field, value = ARGV[f], ARGV[f + 1]
      if field == pField or field == nField then
        -- this region's own: added to what it counted since the loss
        redis.call('HINCRBY', KEYS[i], field, value)
        own = true
      elseif tonumber(value) > tonumber(redis.call('HGET', KEYS[i], field) or '0') then
        redis.call('HSET', KEYS[i], field, value)
      end
    end
    if fresh and ttl ~= '0' then
      redis.call('PEXPIRE', KEYS[i], ttl)
    end
    if own then
      recovered = recovered + 1
    end
  end
end
if ARGV[2] == '1' then
  local time = redis.call('TIME')
  redis.call('SET', KEYS[1], time[1] .. '.' .. time[2])
  redis.call('DEL', KEYS[2])
end
return recovered
