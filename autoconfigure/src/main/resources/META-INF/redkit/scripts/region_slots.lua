-- Shared by the region scripts: a regional counter is a hash with two grow-only fields per
-- region, 'p:<region>' (everything added) and 'n:<region>' (everything subtracted).
-- Sums are exact below 2^53 and formatted with '%.0f', never with tostring.
local function exact(n)
  return string.format('%.0f', n)
end

local function total(key)
  local fields = redis.call('HGETALL', key)
  local sum = 0
  for i = 1, #fields, 2 do
    local kind = string.sub(fields[i], 1, 2)
    if kind == 'p:' then
      sum = sum + tonumber(fields[i + 1])
    elseif kind == 'n:' then
      sum = sum - tonumber(fields[i + 1])
    end
  end
  return sum
end
