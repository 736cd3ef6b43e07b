-- Gives this region back its own slot of counters after its Redis lost them (restarted
-- without persistence, or replaced) or went back in time (restored from an older snapshot,
-- failed over to a replica that was behind): the peers still hold the slot as it was last
-- shipped to them. For each counter the caller passes what to ADD to this region's slot: the
-- largest value a peer holds minus what this Redis held when it came back (0 when empty; the
-- last outbox entry before the peers' high-water mark otherwise), so what was counted since it
-- came back is neither lost nor hidden under the old values. Until the incarnation key exists
-- again no replicator ships (region_outbox_read answers -2), so the peers still hold only the
-- old values while they are read. Each counter is recovered once: several instances
-- recovering at once, or one that dies half-way and a retry, skip what is done.
-- The other regions' slots come back the way a peer applies an entry: the larger of what is
-- here and what was read. A global rate limit's sub-window counter moves its view by as much as
-- its slots moved (see ratelimit_global_view).
-- The slot a counter's own part moved is no longer the last outbox entry's: its new value and
-- the outbox's last id are kept beside it (its recovered-slot key, '<p>|<n>|<stream id>'),
-- where a later recovery reads what this Redis held (RegionRecovery.slotsBefore); without it,
-- a Redis restored from a snapshot taken after this call added what this call gave back again.
-- KEYS[1] the incarnation key, KEYS[2] the counters recovered so far (a set), KEYS[3] the
-- outbox sequence, KEYS[4] the outbox, then per peer the position shipped to it and its
-- re-seed flag, then the counters, then each counter's recovered-slot key in the same order
-- ARGV[1] this region, ARGV[2] '1' on the last batch, ARGV[3] the number of peers,
-- ARGV[4] the highest sequence any peer received from this region, ARGV[5] '1' when the peers
-- must be re-seeded after the last batch, ARGV[6] the re-seed flag's value, then per counter:
-- its TTL ms (0: none), how many fields follow, then the fields and their values
-- On the last batch the sequence moves past what the peers received (at least one past the
-- highest), every peer's position to the end of the outbox (entries written since the loss
-- reuse sequences the peers know, and the re-seed ships their state) and every peer is
-- flagged for a re-seed.
-- Returns the number of counters whose own slot this call gave back, -1 when recovery was
-- already done
--#include region_incarnation
--#include core_numbers
--#include ratelimit_global_view
if holdsIncarnation(KEYS[1]) then
  return -1
end
local pField, nField = 'p:' .. ARGV[1], 'n:' .. ARGV[1]
local peers = tonumber(ARGV[3])
local recovered, at = 0, 7
local first = 5 + peers * 2
local counters = (#KEYS - first + 1) / 2
local newest = redis.call('XREVRANGE', KEYS[4], '+', '-', 'COUNT', 1)
local newestId = (#newest > 0) and newest[1][1] or '0-0'
for i = first, first + counters - 1 do
  local ttl, count = ARGV[at], tonumber(ARGV[at + 1])
  local first = at + 2
  at = first + count * 2
  if redis.call('SADD', KEYS[2], KEYS[i]) == 1 then
    local fresh, own, delta = redis.call('EXISTS', KEYS[i]) == 0, false, 0
    for f = first, first + count * 2 - 1, 2 do
      local field, value = ARGV[f], ARGV[f + 1]
      -- what the field moved by, counted in the total (p fields add, n fields take away)
      local sign = (string.sub(field, 1, 2) == 'n:') and -1 or 1
      if field == pField or field == nField then
        if value ~= '0' then
          redis.call('HINCRBY', KEYS[i], field, value)
          own = true
          delta = delta + sign * tonumber(value)
        end
      else
        local held = tonumber(redis.call('HGET', KEYS[i], field) or '0')
        if tonumber(value) > held then
          redis.call('HSET', KEYS[i], field, value)
          delta = delta + sign * (tonumber(value) - held)
        end
      end
    end
    if fresh and ttl ~= '0' then
      redis.call('PEXPIRE', KEYS[i], ttl)
    end
    -- a global limit's sub-window: its view moves by as much (see ratelimit_global_view)
    to_view(KEYS[i], delta, nil)
    if own then
      recovered = recovered + 1
      local slot = redis.call('HMGET', KEYS[i], pField, nField)
      local mark = (slot[1] or '0') .. '|' .. (slot[2] or '0') .. '|' .. newestId
      -- lives as long as its counter: the same expiry, or none for a counter kept until deleted
      local pttl = redis.call('PTTL', KEYS[i])
      if pttl > 0 then
        redis.call('SET', KEYS[i + counters], mark, 'PX', exact(pttl))
      else
        redis.call('SET', KEYS[i + counters], mark)
      end
    end
  end
end
if ARGV[2] == '1' then
  local time = redis.call('TIME')
  redis.call('SET', KEYS[1], time[1] .. '.' .. time[2] .. '@' .. runId())
  redis.call('DEL', KEYS[2])
  if ARGV[5] == '1' then
    -- past what any peer received: the re-seed's position (see region_reseed_read) moves
    -- the peers' mark to this sequence and the newest id, which must not look like a
    -- sequence received before under an earlier id (a step back)
    local seq = math.max(tonumber(redis.call('GET', KEYS[3]) or '0'), tonumber(ARGV[4]) + 1)
    redis.call('SET', KEYS[3], string.format('%.0f', seq))
    local position = newestId .. '|' .. string.format('%.0f', seq)
    for p = 0, peers - 1 do
      redis.call('SET', KEYS[5 + p * 2], position)
      redis.call('SET', KEYS[6 + p * 2], ARGV[6])
    end
  end
end
return recovered
