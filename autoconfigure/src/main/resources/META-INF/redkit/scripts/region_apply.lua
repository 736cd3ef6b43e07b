-- Applies a batch of one origin region's outbox on a peer's Redis: each entry carries the
-- origin's absolute p and n of one counter, and the peer keeps the larger of what it has and
-- what it receives. Both only grow, so applying an entry twice, or an older entry after a
-- newer one, changes nothing: at most once by construction, not by bookkeeping. A global rate
-- limit's sub-window counter moves its view by as much (see ratelimit_global_view).
-- KEYS[1] the high-water marks hash (origin -> '<highest sequence received>|<its stream id>'),
-- KEYS[2..] one counter hash per entry
-- ARGV[1] origin region, then 4 per entry: sequence ('<sequence>|<stream id>' from an outbox,
-- '0' for a snapshot of the slot), p, n, ttl ms ('0': the counter lives until deleted; else it
-- expires that long after this apply, see region_slots)
-- Returns {entries that changed a slot, entries already known (duplicates or older),
--          the origin's high-water mark before this batch (0: this Redis never received
--          anything from the origin, or lost it: a restart without persistence)}
-- or {-1, 0, that mark, its stream id} without applying anything when an entry reuses a
-- sequence already received under a later stream id: the origin's Redis went back in time
-- (restored from an older snapshot, or failed over to a replica that was behind) and must
-- recover before its slots go anywhere (see region_recover).
-- A counter whose TTL an entry extends takes its recovered-slot key along (this Redis' region's
-- slot as its last recovery left it, see region_recover): it must live as long as the counter,
-- else a later recovery finds the counter without it and counts the slot again. Its key is
-- the counter's with 'counter:' made 'recovered-slot:' (RegionKeys.recoveredSlot), in the same
-- hash tag; no ':' is left unescaped in a name, so the last ':counter:' ends the prefix.
--#include core_numbers
--#include ratelimit_global_view
local origin = ARGV[1]
local pField, nField = 'p:' .. origin, 'n:' .. origin

local function parse(position)
  local seq, id = string.match(position, '^(%d+)|(%d+%-%d+)$')
  if seq then
    return tonumber(seq), id
  end
  return tonumber(position), nil
end

local function later(a, b)
  local aMs, aSub = string.match(a, '^(%d+)%-(%d+)$')
  local bMs, bSub = string.match(b, '^(%d+)%-(%d+)$')
  aMs, bMs = tonumber(aMs), tonumber(bMs)
  return aMs > bMs or (aMs == bMs and tonumber(aSub) > tonumber(bSub))
end

local high, highId = parse(redis.call('HGET', KEYS[1], origin) or '0')
local before = high
if highId then
  for i = 2, #KEYS do
    local seq, id = parse(ARGV[(i - 2) * 4 + 2])
    if id and seq <= high and later(id, highId) then
      return {-1, 0, high, highId}
    end
  end
end
local changed, known = 0, 0
for i = 2, #KEYS do
  local base = (i - 2) * 4 + 1
  local seq, id = parse(ARGV[base + 1])
  local p, n = tonumber(ARGV[base + 2]), tonumber(ARGV[base + 3])
  local moved, delta = false, 0
  local oldP = tonumber(redis.call('HGET', KEYS[i], pField) or '0')
  if p > oldP then
    redis.call('HSET', KEYS[i], pField, ARGV[base + 2])
    moved, delta = true, p - oldP
  end
  local oldN = tonumber(redis.call('HGET', KEYS[i], nField) or '0')
  if n > oldN then
    redis.call('HSET', KEYS[i], nField, ARGV[base + 3])
    moved, delta = true, delta - (n - oldN)
  end
  if moved then changed = changed + 1 else known = known + 1 end
  if moved and ARGV[base + 4] ~= '0' then
    redis.call('PEXPIRE', KEYS[i], ARGV[base + 4])
    local prefix, name = string.match(KEYS[i], '^(.*):counter:([^:]*)$')
    if prefix then
      redis.call('PEXPIRE', prefix .. ':recovered-slot:' .. name, ARGV[base + 4])
    end
  end
  if moved then
    -- a global limit's sub-window: its view moves by as much (see ratelimit_global_view)
    to_view(KEYS[i], delta, (ARGV[base + 4] ~= '0') and tonumber(ARGV[base + 4]) or nil)
  end
  if seq > high then
    high, highId = seq, id
  end
end
-- kept without a TTL, like the counters it describes (one field per origin region)
local mark = string.format('%.0f', high)
if highId then
  mark = mark .. '|' .. highId
end
redis.call('HSET', KEYS[1], origin, mark)
return {changed, known, before}
