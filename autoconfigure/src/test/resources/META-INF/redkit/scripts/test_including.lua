-- uses a shared function
--#include test_library
return twice(tonumber(ARGV[1]))
