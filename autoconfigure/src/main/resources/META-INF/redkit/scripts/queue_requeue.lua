-- Moves dead letters back to the ready list with a fresh delivery count: one by id, or
-- the oldest ones (a bounded batch).
-- KEYS[1] dead hash, KEYS[2] dead errors hash, KEYS[3] dead index zset, KEYS[4] ready list,
-- KEYS[5] the call's record "once:<operation id>" holding its answer for the replay
-- window: the same call sent again by the client after a reconnect is answered as the
-- first was and moves nothing more (a batch would move the next one)
-- ARGV[1] id, or '' for a batch; ARGV[2] batch size; ARGV[3] the replay window ms
-- Returns how many were re-queued.
--#include core_numbers
--#include queue_requeue_dead
return requeue_dead(function(e)
  redis.call('RPUSH', KEYS[4], e)
end)
