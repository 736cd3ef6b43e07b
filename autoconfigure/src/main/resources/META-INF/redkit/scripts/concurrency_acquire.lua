-- Takes one permit of a concurrency limit, in one round trip.
-- KEYS[1] the permits of one (limit, identifier): a sorted set, member = permit id, score = the
-- end of its lease in Redis ms
-- ARGV[1] the new permit's random id, ARGV[2] the limit (> 0), ARGV[3] the lease in ms (> 0)
-- Returns {1 when taken else 0, permits in flight (the new one included), ms until the earliest
-- lease ends (0 when none is left)}
-- A call the client sends again after a reconnect (issue 43) finds its own permit and answers
-- taken, changing nothing: counted against the limit, it would be refused while its own
-- permit held the last place for its whole lease.
--#include core_numbers
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local limit = tonumber(ARGV[2])
local lease = tonumber(ARGV[3])
-- the permits of crashed holders end with their lease
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', exact(now))
local inFlight = redis.call('ZCARD', KEYS[1])
local function earliest()
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  if #first == 0 then
    return 0
  end
  return math.max(tonumber(first[2]) - now, 0)
end
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  -- this very call, delivered again: taken, with the lease the first copy set
  return {1, inFlight, earliest()}
end
if inFlight >= limit then
  return {0, inFlight, earliest()}
end
redis.call('ZADD', KEYS[1], exact(now + lease), ARGV[1])
-- the set lives as long as its latest lease (PEXPIRE ... GT needs Redis 7)
if redis.call('PTTL', KEYS[1]) < lease then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return {1, inFlight + 1, earliest()}
