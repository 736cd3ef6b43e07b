-- Reads a list queue's counts at one instant (one script: a take, release or acknowledgement
-- between two reads would count a message twice or not at all): what is ready, delayed, in
-- flight and dead, and the oldest ready element.
-- KEYS[1] ready list, KEYS[2] delayed zset, KEYS[3] in-flight zset, KEYS[4] dead index zset.
-- Returns { ready, delayed, in flight, dead letters, the oldest ready element ('' when none),
-- the server's time in ms }.
--#include core_numbers
local time = redis.call('TIME')
local now = exact(tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
local head = redis.call('LINDEX', KEYS[1], 0)
return { redis.call('LLEN', KEYS[1]), redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[3]),
  redis.call('ZCARD', KEYS[4]), head or '', now }
