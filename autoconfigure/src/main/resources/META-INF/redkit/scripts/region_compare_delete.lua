-- Deletes a key only while it holds the value the caller read: a re-seed flag set again
-- during the re-seed stays for the next one; an incarnation already replaced by a recovery
-- is not forgotten again.
-- KEYS[1] the key, ARGV[1] the value read
-- Returns 1 when deleted, else 0
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
