-- Every budget decision in one call: expired reservations are settled first (their money
-- comes back), then the command checks everything before it changes anything. The rules of
-- spending and reserving are budget_rules', shared with regional budgets.
-- KEYS[1] balance (integer minor units), KEYS[2] reservations hash (id -> amount),
-- KEYS[3] reservation deadlines sorted set (id -> deadline ms),
-- KEYS[4] (optional) the record of an idempotent command: "<applied>|<remaining>|<reservation id>"
-- (a create and a delete have one too, under an id generated per call)
-- KEYS[5] (giveback) the record of the spend whose unused part is given back
-- ARGV[1] command: create | delete | remaining | spend | refund | giveback | reserve | commit |
-- release; giveback is a refund applied only while this Redis holds the record of the spend it
-- gives back part of (a local allowance's batch) and that spend applied: a Redis back on a
-- snapshot from before that spend never took it, nor did a refused spend, and neither must get
-- it back; without a record it writes one of "not applied", so that the spend, if it was only
-- late (its answer lost on the way), replays that instead of taking a batch no one hands out
-- ARGV[2] amount, ARGV[3] reservation id (reserve, commit, release) or '1' to replace (create),
-- ARGV[4] ttl ms of the reservation (reserve), ARGV[5] ttl ms of the record in KEYS[4]
-- Returns {applied: 1 | 0 | -1 (no such budget) | -2 (a refund past ARGV[6], the largest exact
-- amount), remaining, 1 when replayed from KEYS[4], the reservation id (reserve)}
-- Amounts are integers below 2^53, exact in Lua's doubles; every number goes back to Redis
-- through exact() (see core_numbers.lua).
--#include core_numbers
--#include budget_rules
local command = ARGV[1]
local amount = tonumber(ARGV[2])

if command == 'create' or command == 'delete' then
  -- under an id generated per call: the copy the client sends again after a reconnect
  -- answers what the first answered and undoes nothing done between the two (issue 43)
  if KEYS[4] then
    local first = redis.call('GET', KEYS[4])
    if first then
      local applied, remaining = string.match(first, '^(%-?%d+)|(%-?%d+)')
      return {tonumber(applied), tonumber(remaining), 1}
    end
  end
  local applied, remaining = 1, amount
  if command == 'delete' then
    applied, remaining = redis.call('DEL', KEYS[1]), 0
    redis.call('DEL', KEYS[2], KEYS[3])
  elseif ARGV[3] == '1' then
    redis.call('DEL', KEYS[2], KEYS[3])
    redis.call('SET', KEYS[1], ARGV[2])
  elseif not redis.call('SET', KEYS[1], ARGV[2], 'NX') then
    applied, remaining = 0, tonumber(redis.call('GET', KEYS[1]))
  end
  if KEYS[4] then
    redis.call('SET', KEYS[4], exact(applied) .. '|' .. exact(remaining) .. '|', 'PX', ARGV[5])
  end
  return {applied, remaining, 0}
end

local stored = redis.call('GET', KEYS[1])
if not stored then
  return {-1, 0, 0}
end

local balance = tonumber(stored)
local account = {
  available = function() return balance end,
  take = function(by) balance = redis.call('DECRBY', KEYS[1], exact(by)) end,
  giveBack = function(by) balance = redis.call('INCRBY', KEYS[1], exact(by)) end
}
settleExpired(account, KEYS[2], KEYS[3])

if KEYS[4] then
  local first = redis.call('GET', KEYS[4])
  if first then
    -- records written before reservation ids were kept have no third field
    local applied, remaining, id = string.match(first, '^(%-?%d+)|(%-?%d+)|?(.*)$')
    return {tonumber(applied), tonumber(remaining), 1, id}
  end
end

local applied = 0

if command == 'spend' then
  applied = spendOrReserve(account, amount, KEYS[2], KEYS[3], nil, 0) and 1 or 0
elseif command == 'refund' or command == 'giveback' then
  if command == 'giveback' then
    local spent = redis.call('GET', KEYS[5])
    if not spent then
      -- no record of the batch's spend: a Redis that forgot it, or a spend whose answer was
      -- lost before it arrived; a record of "not applied" fences that spend if it comes late
      redis.call('SET', KEYS[5], '0|' .. exact(balance) .. '|', 'PX', ARGV[5])
      return {0, balance, 0}
    end
    if string.match(spent, '^(%-?%d+)') ~= '1' then
      -- the batch's spend was refused: it took nothing to give back
      return {0, balance, 0}
    end
  end
  -- open reservations come back to the balance too: count them against the largest amount
  local reserved = 0
  for _, held in ipairs(redis.call('HVALS', KEYS[2])) do
    reserved = reserved + tonumber(held)
  end
  if balance + reserved + amount > tonumber(ARGV[6]) then
    -- refused and not recorded: the operation id stays free for a smaller refund
    return {-2, balance, 0}
  end
  account.giveBack(amount)
  applied = 1
elseif command == 'reserve' then
  applied = spendOrReserve(account, amount, KEYS[2], KEYS[3], ARGV[3], tonumber(ARGV[4])) and 1 or 0
elseif command == 'commit' or command == 'release' then
  applied = settleReservation(account, command, amount, KEYS[2], KEYS[3], ARGV[3])
  if applied == -1 then
    return redis.error_reply('ERR commit of ' .. ARGV[2] .. ' exceeds the reserved '
      .. redis.call('HGET', KEYS[2], ARGV[3]))
  end
  if applied == 0 then
    -- released, committed or expired (its money is back): nothing recorded
    return {0, balance, 0}
  end
elseif command ~= 'remaining' then
  return redis.error_reply('ERR unknown budget command ' .. command)
end

local id = (command == 'reserve' and applied == 1) and ARGV[3] or ''
if KEYS[4] then
  redis.call('SET', KEYS[4], exact(applied) .. '|' .. exact(balance) .. '|' .. id, 'PX', ARGV[5])
end
return {applied, balance, 0, id}
