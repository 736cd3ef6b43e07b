-- Acknowledges a message: its take leaves the in-flight set, and so the queue.
-- KEYS[1] in-flight zset; ARGV[1] the in-flight entry "<take token>#<element>".
-- Returns 1 when this take was still in flight, 0 when it was lost (its visibility
-- timeout expired and a take moved it back, or it was settled already): another take
-- of the same message, even of the very same element, is left alone.
return redis.call('ZREM', KEYS[1], ARGV[1])
