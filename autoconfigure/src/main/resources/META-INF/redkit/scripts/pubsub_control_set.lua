-- Sets desired values of a control group, bumps its version and announces the change.
-- KEYS[1] values hash; KEYS[2] version counter. ARGV[1] channel; ARGV[2] TTL in ms;
-- ARGV[3] group name; ARGV[4..] field, value pairs ('' value removes the field).
-- Both keys share a hash tag; the PUBLISH happens after the write, so a subscriber that
-- re-reads on the announcement sees the new values. Returns the new version.
for i = 4, #ARGV, 2 do
  if ARGV[i + 1] == '' then
    redis.call('HDEL', KEYS[1], ARGV[i])
  else
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  end
end
local version = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
redis.call('PUBLISH', ARGV[1], cjson.encode({ group = ARGV[3], version = version }))
return version
