-- Takes a stopping instance's consumer out of a stream queue's group (XGROUP DELCONSUMER),
-- only if nothing is pending for it: deleting a consumer drops its pending entries from the
-- group's list, and they would never be claimed again. Also takes out the consumers of
-- instances that ended otherwise (a process that died, a stop whose listener outlived its
-- shutdown-timeout, one that held entries when it stopped): those with nothing pending, idle
-- for at least the visibility timeout (a live instance takes at least every poll-timeout; one
-- taken out holding nothing is made again by its next take), at most SWEEP a call, so that
-- one name per start does not pile up in XINFO CONSUMERS. Only consumers Redkit named
-- ("redkit-<id>") are swept: on a stream another application writes, its own readers of the
-- group (a NOACK reader holds nothing pending) are left alone.
-- KEYS[1] stream; ARGV[1] group, ARGV[2] consumer, ARGV[3] the visibility timeout ms.
-- Returns 1 when it left (or was not there), 0 when it still holds pending entries.
local SWEEP = 1000
local PREFIX = 'redkit-'
local consumers = redis.pcall('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])
if type(consumers) ~= 'table' or consumers.err then
  return 1
end
local idle_enough = tonumber(ARGV[3])
local left = 1
local swept = 0
for _, c in ipairs(consumers) do
  local name, pending, idle
  for i = 1, #c, 2 do
    if c[i] == 'name' then
      name = c[i + 1]
    elseif c[i] == 'pending' then
      pending = tonumber(c[i + 1])
    elseif c[i] == 'idle' then
      idle = tonumber(c[i + 1])
    end
  end
  if name == ARGV[2] then
    if pending > 0 then
      left = 0
    else
      redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], name)
    end
  elseif idle_enough and pending == 0 and idle and idle >= idle_enough and swept < SWEEP
      and string.sub(name, 1, #PREFIX) == PREFIX then
    redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], name)
    swept = swept + 1
  end
end
return left
