-- Shared by queue_requeue.lua and queue_stream_requeue.lua (included with --#include, after
-- core_numbers): moves dead letters back to the queue with a fresh delivery count, one by
-- id or the oldest ones (a bounded batch), once: the call's record holds its answer for the
-- replay window, so that the same call sent again by the client after a reconnect is
-- answered as the first was and moves nothing more (a batch would move the next one).
-- KEYS[1] dead hash, KEYS[2] dead errors hash, KEYS[3] dead index zset, KEYS[5] the call's
-- record "once:<operation id>"; ARGV[1] id, or '' for a batch; ARGV[2] batch size; ARGV[3]
-- the replay window ms.

-- Moves them, each through push(element) (the store's append), and returns how many moved.
local function requeue_dead(push)
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
        push(string.sub(e, 1, p1) .. '0' .. string.sub(e, p2))
      else
        -- not a Redkit element: back as it is (a take dead-letters it again)
        push(e)
      end
      moved = moved + 1
    end
    redis.call('HDEL', KEYS[1], id)
    redis.call('HDEL', KEYS[2], id)
    redis.call('ZREM', KEYS[3], id)
  end
  redis.call('SET', KEYS[5], exact(moved), 'PX', ARGV[3])
  return moved
end
