-- Gives up this instance's lease of shipping to one peer (see region_lease), so that another
-- instance of the region takes over at its next round rather than when the lease runs out.
-- KEYS[1] the lease key, ARGV[1] this instance's id
--#include region_lease
lease(KEYS[1], ARGV[1], '0')
return 1
