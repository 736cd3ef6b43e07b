-- Takes a stopping instance's consumer out of a stream queue's group (XGROUP DELCONSUMER),
-- only if nothing is pending for it: deleting a consumer drops its pending entries from the
-- group's list, and they would never be claimed again.
-- KEYS[1] stream; ARGV[1] group, ARGV[2] consumer.
-- Returns 1 when it left (or was not there), 0 when it still holds pending entries.
local consumers = redis.pcall('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])
if type(consumers) ~= 'table' or consumers.err then
  return 1
end
for _, c in ipairs(consumers) do
  local name, pending
  for i = 1, #c, 2 do
    if c[i] == 'name' then
      name = c[i + 1]
    elseif c[i] == 'pending' then
      pending = c[i + 1]
    end
  end
  if name == ARGV[2] then
    if tonumber(pending) > 0 then
      return 0
    end
    redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2])
    return 1
  end
end
return 1
