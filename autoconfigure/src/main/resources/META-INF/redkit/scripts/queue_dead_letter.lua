-- Shared by queue_fail.lua and queue_stream_fail.lua (included with --#include, after
-- core_numbers): a failed message's dead letter, in the dead-letter keys a queue has
-- whatever its store.

-- Now in ms on the Redis clock.
local function clock_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Reads the dead-letter keys before a script's first write: another writer's value there
-- fails the script (WRONGTYPE) before it changes anything, not after the message left
-- flight (lost).
local function check_dead_letter(dead, errors, index)
  redis.call('HLEN', dead)
  redis.call('HLEN', errors)
  redis.call('ZCARD', index)
end

-- Keeps the element under its message id with its last error, dead at now (ms); the dead
-- letters older than the retention (ms) leave first, a bounded batch per call, and the
-- keys live as long as the retention.
local function dead_letter(dead, errors, index, now, id, element, err, retention)
  local old = redis.call('ZRANGEBYSCORE', index, '-inf', exact(now - retention), 'LIMIT', 0, 100)
  for _, gone in ipairs(old) do
    redis.call('HDEL', dead, gone)
    redis.call('HDEL', errors, gone)
    redis.call('ZREM', index, gone)
  end
  redis.call('HSET', dead, id, element)
  redis.call('HSET', errors, id, err)
  redis.call('ZADD', index, exact(now), id)
  redis.call('PEXPIRE', dead, exact(retention))
  redis.call('PEXPIRE', errors, exact(retention))
  redis.call('PEXPIRE', index, exact(retention))
end
