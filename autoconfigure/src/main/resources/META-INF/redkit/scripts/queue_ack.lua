-- Acknowledges a message: it leaves the in-flight set, and so the queue.
-- KEYS[1] in-flight zset; ARGV[1] the element as it was taken.
-- Returns 1 when it was still in flight, 0 when its visibility timeout had expired.
return redis.call('ZREM', KEYS[1], ARGV[1])
