-- Reads a regional counter: the sum of every region's slot as this Redis sees it.
-- KEYS[1] the counter hash (see region_slots)
-- Returns the total (0 when the counter does not exist)
--#include region_slots
return total(KEYS[1])
