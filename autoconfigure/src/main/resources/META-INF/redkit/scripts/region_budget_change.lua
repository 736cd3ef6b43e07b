-- Changes a regional budget in one atomic call on the local Redis and queues the change for
-- the peers like region_counter_increment: a budget is made of regional counters (see
-- region_slots), so the same outbox, replicators and max-merge carry it. Two modes:
--  shared:   one counter; its 'p' slots hold what was granted (creation, refunds), its 'n'
--            slots what was spent; a region spends from the total it sees.
--  allotted: one counter as above, where a region's 'n' slot also holds what it gave away,
--            plus one 'incoming' counter per region holding what the others gave it. A region
--            spends only from its share (its own slot plus what it was given), whose own part
--            it sees exactly and whose given part it sees late, never early: no region can
--            spend what it does not own, so the total never goes below zero.
-- The rules of spending and reserving are budget_rules', shared with budget_apply.
-- A reservation is a spend that this region remembers (not replicated): committing it gives
-- back what was not used, releasing it or letting it expire gives back all of it. Expired
-- reservations are settled by the next change of the budget in this region.
-- KEYS[1] the shared counter, KEYS[2] the allotted counter, KEYS[3] this region's incoming
-- counter, KEYS[4] the outbox sequence, KEYS[5] the outbox stream, KEYS[6] the operation's key
-- (this region only: an operation id is idempotent per region), KEYS[7] this region's
-- reservations (id -> amount), KEYS[8] their deadlines (id -> ms), KEYS[9] this region's
-- incarnation (see region_recover), KEYS[10..] the incoming counters of other regions: every
-- other region for 'allot', the receiver for 'give' and 'lend'
-- ARGV[1] this region, ARGV[2] 'create' | 'allot' | 'spend' | 'refund' | 'give' | 'lend' (a
-- give asked by the receiver, which applies the reply at once) | 'reserve' | 'commit' |
-- 'release', ARGV[3] amount (positive; what is used, for commit), ARGV[4] outbox
-- bound (MAXLEN ~), ARGV[5] operation TTL (ms), '0' for no record read or written (the Java
-- always sends one now: a spend without the caller's id has one generated per call, kept only
-- while the client may send it again), ARGV[6] the shared counter's name, ARGV[7]
-- the allotted counter's name, ARGV[8] this region's incoming counter's name, ARGV[9] the
-- reservation id, ARGV[10] the reservation's TTL (ms), ARGV[11] '1' when the change needs
-- this region's incarnation (it has peers), then per KEYS[10..]: the counter's name
-- and (allot) the share given to its region
-- Every change but a replayed one is refused while this Redis does not hold the region's own
-- slot (no incarnation: new, or it lost its data, and region_recover has not run): the peers
-- may have re-seeded what the others hold, a share given to this region included, while what
-- this region spent comes back only with its recovery; spending now would spend it twice.
-- Returns {1 when applied (or replayed), 0 when refused, -1 when there is no such budget,
--          -2 when this Redis does not hold the region's own slot yet, -3 when a refund would
--          take the balance or the region's slot past 2^53 - 1 (nothing changed),
--          remaining (shared) or this region's share (allotted) as seen here,
--          1 when the operation id was seen before (nothing changed), the amount given (give),
--          then (give) this region's p and n of the allotted and of the receiver's counter}
--#include region_slots
--#include budget_rules
--#include region_incarnation
local region, op, amount = ARGV[1], ARGV[2], tonumber(ARGV[3])
local sequence, outbox, bound = KEYS[4], KEYS[5], ARGV[4]
local pField, nField = 'p:' .. region, 'n:' .. region

local remembers = ARGV[5] ~= '0'
local done = remembers and redis.call('GET', KEYS[6])
if done then
  -- the answer of the first attempt, so that a retry reads as the original did
  local seen, given = string.match(done, '^(%-?%d+)|(%d+)$')
  return {1, tonumber(seen), 1, tonumber(given)}
end
if ARGV[11] == '1' and not holdsIncarnation(KEYS[9]) then
  return {-2, 0, 0, 0}
end
-- the largest integer a Lua double holds exactly
local MAX = 9007199254740991

-- a counter as this Redis sees it: {exists, total, this region's p, this region's n}
local function counter(key)
  local fields = redis.call('HGETALL', key)
  local seen, p, n = sum(fields, region)
  return {#fields > 0, seen, p, n}
end

-- adds to this region's p (grow) or n slot of a counter read before (seen), and ships the
-- slot's new state
local function add(key, name, seen, grow, by)
  if grow then
    seen[3] = redis.call('HINCRBY', key, pField, exact(by))
  else
    seen[4] = redis.call('HINCRBY', key, nField, exact(by))
  end
  ship(sequence, outbox, bound, name, seen[3], seen[4])
  return seen[3], seen[4]
end

local function answer(seen, given)
  if remembers then
    redis.call('SET', KEYS[6], exact(seen) .. '|' .. exact(given), 'PX', ARGV[5])
  end
  return {1, seen, 0, given}
end

if op == 'create' or op == 'allot' then
  -- a budget this region already sees, in either mode, is not granted twice from here
  if redis.call('EXISTS', KEYS[1], KEYS[2], KEYS[3]) > 0 then
    return {0, 0, 0, 0}
  end
  if op == 'create' then
    add(KEYS[1], ARGV[6], {false, 0, 0, 0}, true, amount)
    return answer(amount, 0)
  end
  -- this region grants the whole amount and gives each other region its share at once
  local givenAway = 0
  for i = 10, #KEYS do
    local share = tonumber(ARGV[13 + (i - 10) * 2])
    if share > 0 then
      add(KEYS[i], ARGV[12 + (i - 10) * 2], {false, 0, 0, 0}, true, share)
      givenAway = givenAway + share
    end
  end
  redis.call('HSET', KEYS[2], nField, exact(givenAway))
  add(KEYS[2], ARGV[7], {true, 0, 0, givenAway}, true, amount)
  return answer(amount - givenAway, 0)
end

-- the budget this region spends from: its counter, and what this region may spend of it
local key, name, seen, available
local shared = counter(KEYS[1])
if shared[1] then
  key, name, seen = KEYS[1], ARGV[6], shared
  available = function() return seen[2] end
else
  local allotted, incoming = counter(KEYS[2]), counter(KEYS[3])
  if not (allotted[1] or incoming[1]) then
    return {-1, 0, 0, 0}
  end
  key, name, seen = KEYS[2], ARGV[7], allotted
  available = function() return seen[3] - seen[4] + incoming[2] end
end

local function take(by)
  add(key, name, seen, false, by)
  seen[2] = seen[2] - by
end

local function giveBack(by)
  add(key, name, seen, true, by)
  seen[2] = seen[2] + by
end

local account = {available = available, take = take, giveBack = giveBack}
if redis.call('EXISTS', KEYS[8]) == 1 then
  settleExpired(account, KEYS[7], KEYS[8])
end

if op == 'refund' then
  if available() + amount > MAX or seen[3] + amount > MAX then
    return {-3, available(), 0, 0}
  end
  giveBack(amount)
  return answer(available(), 0)
elseif op == 'spend' or op == 'reserve' then
  local id = (op == 'reserve') and ARGV[9] or nil
  if not spendOrReserve(account, amount, KEYS[7], KEYS[8], id, tonumber(ARGV[10])) then
    -- refusals are not remembered: the same id may succeed after a refund
    return {0, available(), 0, 0}
  end
  return answer(available(), 0)
elseif op == 'commit' or op == 'release' then
  if settleReservation(account, op, amount, KEYS[7], KEYS[8], ARGV[9]) ~= 1 then
    -- committed, released or expired already, or a commit of more than was reserved
    return {0, available(), 0, 0}
  end
  return answer(available(), 0)
end

-- give, lend: as much of what was asked as this region's share holds, to the receiver's counter
if key == KEYS[1] then
  return {0, available(), 0, 0}
end
local share = available()
local given = math.min(amount, share)
if given <= 0 then
  return {0, share, 0, 0}
end
local ap, an = add(key, name, seen, false, given)
-- only this region writes its slot of the receiver's counter, and only its p
local ip, inn = add(KEYS[10], ARGV[12], {false, 0, 0, 0}, true, given)
redis.call('SET', KEYS[6], exact(share - given) .. '|' .. exact(given), 'PX', ARGV[5])
return {1, share - given, 0, given, exact(ap), exact(an), exact(ip), exact(inn)}
