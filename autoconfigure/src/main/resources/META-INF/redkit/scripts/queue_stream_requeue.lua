-- Moves dead letters of a stream queue back to its stream with a fresh delivery count: one by
-- id, or the oldest ones (a bounded batch); as queue_requeue.lua does for a list queue.
-- KEYS[1] dead hash, KEYS[2] dead errors hash, KEYS[3] dead index zset, KEYS[4] stream,
-- KEYS[5] the call's record "once:<operation id>" holding its answer for the replay window
-- ARGV[1] id, or '' for a batch; ARGV[2] batch size; ARGV[3] the replay window ms
-- Returns how many were re-queued.
--#include core_numbers
--#include queue_requeue_dead
return requeue_dead(function(e)
  redis.call('XADD', KEYS[4], '*', 'e', e)
end)
