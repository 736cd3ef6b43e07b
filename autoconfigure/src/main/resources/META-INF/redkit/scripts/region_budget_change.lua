-- Changes a shared regional budget in one atomic call on the local Redis, and queues the
-- change for the peers exactly as region_counter_increment does: a budget is a regional
-- counter (see region_slots) whose 'p' slots hold what was granted (the creation, refunds)
-- and whose 'n' slots hold what was spent, so the same outbox, replicators and max-merge carry it.
-- KEYS[1] the budget's counter hash, KEYS[2] the outbox sequence, KEYS[3] the outbox stream,
-- KEYS[4] the operation's key (this region only: an operation id is idempotent per region)
-- ARGV[1] this region, ARGV[2] 'create' | 'spend' | 'refund', ARGV[3] amount (positive),
-- ARGV[4] outbox bound (MAXLEN ~), ARGV[5] the counter name, ARGV[6] operation TTL (ms)
-- Returns {1 when applied (or replayed), 0 when refused, remaining as seen here,
--          1 when the operation id was seen before (nothing changed)}
--#include region_slots
local region, op, amount = ARGV[1], ARGV[2], tonumber(ARGV[3])
local done = redis.call('GET', KEYS[4])
if done then
  -- the answer of the first attempt, so that a retry reads as the original did
  return {1, tonumber(done), 1}
end
local remaining = total(KEYS[1])
if op == 'create' then
  -- a budget this region already sees is not granted twice from here
  if redis.call('EXISTS', KEYS[1]) == 1 then
    return {0, remaining, 0}
  end
elseif op == 'spend' and remaining < amount then
  -- refused spends are not remembered: the same id may succeed after a refund
  return {0, remaining, 0}
end
local p, n
if op == 'spend' then
  n = redis.call('HINCRBY', KEYS[1], 'n:' .. region, ARGV[3])
  p = tonumber(redis.call('HGET', KEYS[1], 'p:' .. region) or '0')
  remaining = remaining - amount
else
  p = redis.call('HINCRBY', KEYS[1], 'p:' .. region, ARGV[3])
  n = tonumber(redis.call('HGET', KEYS[1], 'n:' .. region) or '0')
  remaining = remaining + amount
end
local seq = redis.call('INCR', KEYS[2])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[4], '*', 'seq', seq, 'counter', ARGV[5],
  'p', exact(p), 'n', exact(n))
redis.call('SET', KEYS[4], exact(remaining), 'PX', ARGV[6])
return {1, remaining, 0}
