-- Sets desired values of a control group, bumps its version and announces the change.
-- KEYS[1] values hash; KEYS[2] version counter. ARGV[1] channel; ARGV[2] TTL in ms;
-- ARGV[3] group name; ARGV[4..] field, value pairs ('' value removes the field).
-- Both keys share a hash tag; the PUBLISH happens after the write, so a subscriber that
-- re-reads on the announcement sees the new values. Returns the new version.
--#include core_numbers
for i = 4, #ARGV, 2 do
  if ARGV[i + 1] == '' then
    redis.call('HDEL', KEYS[1], ARGV[i])
  else
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  end
end
-- a version is one more than the last, or Redis' clock in microseconds when that is higher:
-- versions keep increasing when the counter is gone (expired, Redis restarted empty) or behind
-- (a promoted replica that missed the last sets), so subscribers never ignore a new state as old
local version = redis.call('INCR', KEYS[2])
local t = redis.call('TIME')
local clock = tonumber(t[1]) * 1000000 + tonumber(t[2])
if clock > version then
  version = clock
  redis.call('SET', KEYS[2], exact(version))
end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
-- built by hand: cjson prints numbers with 14 significant digits, a version has 16
redis.call('PUBLISH', ARGV[1], '{"group":' .. cjson.encode(ARGV[3]) .. ',"version":' .. exact(version) .. '}')
return version
