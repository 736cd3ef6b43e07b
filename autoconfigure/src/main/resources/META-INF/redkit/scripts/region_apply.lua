-- Applies a batch of one origin region's outbox on a peer's Redis: each entry carries the
-- origin's absolute p and n of one counter, and the peer keeps the larger of what it has and
-- what it receives. Both only grow, so applying an entry twice, or an older entry after a
-- newer one, changes nothing: at most once by construction, not by bookkeeping.
-- KEYS[1] the high-water marks hash (origin -> highest sequence received), KEYS[2..] one
-- counter hash per entry
-- ARGV[1] origin region, then 4 per entry: sequence, p, n, ttl ms ('0': the counter lives
-- until deleted; else it expires that long after this apply, see region_slots)
-- Returns {entries that changed a slot, entries already known (duplicates or older),
--          the origin's high-water mark before this batch (0: this Redis never received
--          anything from the origin, or lost it: a restart without persistence)}
local origin = ARGV[1]
local pField, nField = 'p:' .. origin, 'n:' .. origin
local changed, known = 0, 0
local high = tonumber(redis.call('HGET', KEYS[1], origin) or '0')
local before = high
for i = 2, #KEYS do
  local base = (i - 2) * 4 + 1
  local seq, p, n = tonumber(ARGV[base + 1]), tonumber(ARGV[base + 2]), tonumber(ARGV[base + 3])
  local moved = false
  if p > tonumber(redis.call('HGET', KEYS[i], pField) or '0') then
    redis.call('HSET', KEYS[i], pField, ARGV[base + 2])
    moved = true
  end
  if n > tonumber(redis.call('HGET', KEYS[i], nField) or '0') then
    redis.call('HSET', KEYS[i], nField, ARGV[base + 3])
    moved = true
  end
  if moved then changed = changed + 1 else known = known + 1 end
  if moved and ARGV[base + 4] ~= '0' then
    redis.call('PEXPIRE', KEYS[i], ARGV[base + 4])
  end
  if seq > high then high = seq end
end
-- kept without a TTL, like the counters it describes (one field per origin region)
redis.call('HSET', KEYS[1], origin, string.format('%.0f', high))
return {changed, known, before}
