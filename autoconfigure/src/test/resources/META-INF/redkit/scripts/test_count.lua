-- Test script: counts its calls in its key and returns the count.
return redis.call('INCR', KEYS[1])
