-- Moves dead letters of a stream queue back to its stream with a fresh delivery count: one by
-- id, or the oldest ones (a bounded batch); as queue_requeue.lua does for a list queue.
-- KEYS[1] dead hash, KEYS[2] dead errors hash, KEYS[3] dead index zset, KEYS[4] stream,
-- KEYS[5] the call's record "once:<operation id>" holding its answer for the replay window
-- ARGV[1] id, or '' for a batch; ARGV[2] batch size; ARGV[3] the replay window ms
-- Returns how many were re-queued.
--#include core_numbers
local first = redis.call('GET', KEYS[5])
if first then
  return tonumber(first)
end
local ids
if ARGV[1] ~= '' then
  ids = { ARGV[1] }
else
  ids = redis.call('ZRANGE', KEYS[3], 0, exact(tonumber(ARGV[2]) - 1))
end
local moved = 0
for _, id in ipairs(ids) do
  local e = redis.call('HGET', KEYS[1], id)
  if e then
    local p1 = string.find(e, '|', 1, true)
    local p2 = p1 and string.find(e, '|', p1 + 1, true)
    if p2 then
      redis.call('XADD', KEYS[4], '*', 'e', string.sub(e, 1, p1) .. '0' .. string.sub(e, p2))
    else
      -- not a Redkit element: back as it is (a take dead-letters it again)
      redis.call('XADD', KEYS[4], '*', 'e', e)
    end
    moved = moved + 1
  end
  redis.call('HDEL', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
end
redis.call('SET', KEYS[5], exact(moved), 'PX', ARGV[3])
return moved
