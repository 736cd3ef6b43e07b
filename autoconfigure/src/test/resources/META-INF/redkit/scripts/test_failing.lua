-- Test script: always fails.
return redis.error_reply('ERR broken on purpose')
