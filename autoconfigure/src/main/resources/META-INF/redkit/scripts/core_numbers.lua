-- Shared by the scripts (included with --#include): a number sent to Redis as exact text.
-- Lua writes a number with 14 significant digits (tostring, '..') and Redis writes a number
-- argument of redis.call with 17, so 10^14 and 10^17 and more would reach a command as
-- '1e+14' or '1e+17'; integers below 2^53 are exact in Lua's doubles and '%.0f' writes them all.
local function exact(n)
  return string.format('%.0f', n)
end
