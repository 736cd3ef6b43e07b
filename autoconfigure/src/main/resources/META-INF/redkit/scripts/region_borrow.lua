-- Keeps, on the borrowing region's Redis, what one borrow asked of whom: the order in which it
-- asks the other regions, fixed by its first attempt, and what each region answered. A retry,
-- or a second instance running the same operation at once, follows the same order and does not
-- ask again a region that answered: every region is asked for the operation by one key of its
-- own (a 'lend' remembered there), so none gives twice, and no region is added because the
-- shares changed since the first attempt.
-- KEYS[1] the borrowing's record (hash: 'ask:<i>' -> the i-th region to ask, 'gave:<region>'
-- -> what it gave), KEYS[2] this region's incarnation (see region_recover)
-- ARGV[1] the record's TTL (ms), ARGV[2] a region that answered ('' none), ARGV[3] what it gave,
-- ARGV[4..] the regions to ask, in order (kept unless an order is kept already)
-- Returns {-2} while this Redis does not hold the region's own slot (nothing is borrowed then,
-- see region_budget_change), else the record's fields and values
--#include core_numbers
--#include region_incarnation
if not holdsIncarnation(KEYS[2]) then
  return {-2}
end
if #ARGV > 3 and redis.call('HEXISTS', KEYS[1], 'ask:1') == 0 then
  for i = 4, #ARGV do
    redis.call('HSET', KEYS[1], 'ask:' .. exact(i - 3), ARGV[i])
  end
end
if ARGV[2] ~= '' then
  -- a region that answered 0 once may give on a later ask: the larger answer is what it gave
  local field = 'gave:' .. ARGV[2]
  if tonumber(ARGV[3]) > tonumber(redis.call('HGET', KEYS[1], field) or '-1') then
    redis.call('HSET', KEYS[1], field, ARGV[3])
  end
end
if redis.call('PTTL', KEYS[1]) == -1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return redis.call('HGETALL', KEYS[1])
