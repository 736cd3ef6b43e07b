-- Test script: stores its arguments, joined, in its key and returns them as they are.
local joined = ARGV[1] .. ARGV[2]
redis.call('SET', KEYS[1], joined, 'PX', 60000)
return joined
