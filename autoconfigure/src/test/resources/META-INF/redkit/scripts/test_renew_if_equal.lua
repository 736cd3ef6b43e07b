-- For NativeCommandsTests only: renews a key's expiry only while it holds a value, the
-- script whose native form is RenewIfEqual (SET IFEQ).
-- KEYS[1] the key; ARGV[1] the value it must hold, ARGV[2] the new expiry in ms.
-- Returns 1 when renewed, 0 when the key held another value or none.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
