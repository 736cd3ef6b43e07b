-- Busy for ARGV[1] ms of Redis time, then returns 1: a command that stays in flight.
local function ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
end
local deadline = ms() + tonumber(ARGV[1])
while ms() < deadline do end
return 1
