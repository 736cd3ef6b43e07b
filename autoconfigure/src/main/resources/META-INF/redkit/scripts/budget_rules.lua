-- Shared by budget_apply (a budget on one Redis) and region_budget_change (a regional one),
-- included with --#include: the rules of spending, reserving, committing and releasing,
-- written once over an account each script keeps its own way. An account is a table of
--   available()  what may be spent now
--   take(by)     spends (the caller checked available())
--   giveBack(by) returns money (a reservation expired, released, or committed for less)
-- Reservations live in a hash (id -> amount) and a sorted set (id -> deadline, ms of Redis
-- time) of the caller's keys. Needs core_numbers.lua.

-- Redis time in ms, read once, and only by a call that needs it (a spend does not)
local budgetTime
local function budgetNow()
  if not budgetTime then
    local time = redis.call('TIME')
    budgetTime = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  end
  return budgetTime
end

-- expired reservations give their money back: bounded per call so that a script stays
-- short; the rest come back next call
local function settleExpired(account, reservations, deadlines)
  local back = 0
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', deadlines, '-inf', exact(budgetNow()), 'LIMIT', 0, 100)) do
    back = back + tonumber(redis.call('HGET', reservations, id) or '0')
    redis.call('HDEL', reservations, id)
    redis.call('ZREM', deadlines, id)
  end
  if back > 0 then
    account.giveBack(back)
  end
end

-- a spend, or a reservation when id is given (held for ttl ms): whether it applied
local function spendOrReserve(account, amount, reservations, deadlines, id, ttl)
  if id and redis.call('HEXISTS', reservations, id) == 1 then
    -- this very reservation (its id is random, per call), delivered again after the record
    -- of its operation id expired (issue 43): applied, nothing taken twice
    return true
  end
  if account.available() < amount then
    return false
  end
  account.take(amount)
  if id then
    redis.call('HSET', reservations, id, exact(amount))
    redis.call('ZADD', deadlines, exact(budgetNow() + ttl), id)
  end
  return true
end

-- commits (uses amount of it; the rest comes back) or releases (all of it comes back) a
-- reservation. Returns 1 when applied; 0 when there is nothing to settle (committed,
-- released or expired already: an expired one not settled yet is settled now, and not
-- committed); -1 when a commit asks for more than was reserved (nothing changed)
local function settleReservation(account, command, amount, reservations, deadlines, id)
  local held = redis.call('HGET', reservations, id)
  if not held then
    return 0
  end
  held = tonumber(held)
  if command == 'commit' and amount > held then
    return -1
  end
  local expired = tonumber(redis.call('ZSCORE', deadlines, id) or '0') <= budgetNow()
  redis.call('HDEL', reservations, id)
  redis.call('ZREM', deadlines, id)
  if command == 'commit' and expired then
    account.giveBack(held)
    return 0
  end
  local unused = held - ((command == 'commit') and amount or 0)
  if unused > 0 then
    account.giveBack(unused)
  end
  return 1
end
