-- Shared by the region scripts: the lease of shipping this region's outbox to one peer, so
-- that one instance of a region ships while the others stand by. Only traffic depends on it:
-- two shippers at once are still correct (a peer keeps the larger value of each slot).
-- Takes or renews the lease for ms milliseconds, or gives it up when ms is '0'; returns true
-- when this instance holds it (or gave it up), false when another one does.
--#include core_numbers
local function lease(key, instance, ms)
  local holder = redis.call('GET', key)
  if ms == '0' then
    if holder == instance then
      redis.call('DEL', key)
    end
    return true
  end
  if holder == instance then
    redis.call('PEXPIRE', key, exact(tonumber(ms)))
    return true
  end
  if holder then
    return false
  end
  redis.call('SET', key, instance, 'PX', exact(tonumber(ms)))
  return true
end
