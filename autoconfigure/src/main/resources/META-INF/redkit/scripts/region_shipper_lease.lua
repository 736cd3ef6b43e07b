-- Takes or renews the lease of shipping this region's outbox to one peer, so that one
-- instance of a region ships while the others stand by. Only traffic depends on it: two
-- shippers at once are still correct (a peer keeps the larger value of each slot).
-- KEYS[1] the lease key, ARGV[1] this instance's id, ARGV[2] the lease (ms), 0 to give it up
-- Returns 1 when this instance holds the lease (or gave it up), 0 when another one does
local holder = redis.call('GET', KEYS[1])
if ARGV[2] == '0' then
  if holder == ARGV[1] then
    redis.call('DEL', KEYS[1])
  end
  return 1
end
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if holder then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
