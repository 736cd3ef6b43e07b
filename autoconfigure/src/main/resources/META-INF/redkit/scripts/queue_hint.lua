-- Shared by the queue scripts (included with --#include): a queue's next-due hint, a string
-- key beside its in-flight and delayed sorted sets. Its value is a time in ms on the Redis
-- clock (the key expires at it, PXAT) at or before which neither set holds a score: while
-- the hint is trusted no in-flight deadline has passed and no delayed message is due, and
-- the take skips the reaper's reads.
-- What keeps it a lower bound: every script that adds a score to either set, or moves one
-- earlier, lowers the hint below it (lower_hint); only the take's reaper raises it, in the
-- script that just read both sets. A hint is trusted only when it is a number between now
-- and now + HINT_MAX_AGE: a missing one (a Redis restarted empty, a queue last taken by an
-- older Redkit, an evicted key), a passed one or one too far ahead (a clock stepped back,
-- a value no script of ours wrote) makes the take reap and write a fresh one.
--#include core_numbers

-- How long (ms) a hint lives at most after the reaper wrote it: a score that a writer which
-- does not keep the hint added earlier (an older Redkit during a rolling upgrade, a hand-made
-- ZADD) is reaped this much late at most.
local HINT_MAX_AGE = 1000

local function hint_trusted(hint, now)
  return hint ~= nil and hint >= now and hint <= now + HINT_MAX_AGE
end

-- Writes the hint: no score of either set is at or below 'at' (an integer, at least now).
local function set_hint(key, at)
  redis.call('SET', key, exact(at), 'PXAT', exact(at))
end

-- Keeps the hint below a score just added to the in-flight or delayed set, given the hint
-- read in this script.
local function keep_hint_below(key, hint, score, now)
  if hint and score <= hint then
    local at = math.ceil(score) - 1
    if at >= now and hint_trusted(hint, now) then
      set_hint(key, at)
    else
      -- the next take reaps
      redis.call('DEL', key)
    end
  end
end

-- Keeps the hint below a score just added to the in-flight or delayed set.
local function lower_hint(key, score, now)
  keep_hint_below(key, tonumber(redis.call('GET', key)), score, now)
end
