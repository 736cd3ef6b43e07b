-- Reads a stream queue's counts at one instant (one script: an acknowledgement between two
-- reads would count a taken message as ready): what is ready, in flight and dead, and the
-- oldest entry the group has not read.
-- KEYS[1] stream, KEYS[2] dead index zset; ARGV[1] group, ARGV[2] '1' = a stream another
-- application writes: it keeps what was acknowledged, so ready = what the group has not read
-- (its lag, Redis 7+; counted up to 1000 entries when the server does not know it, on 6.2 or
-- after a deletion past the group's position), else Redkit's own stream, which holds only
-- what is ready or in flight: ready = length - pending.
-- Returns { ready, in flight, dead letters, the oldest unread entry's id and its element
-- (field 'e'; '' when none), the server's time in ms }.
--#include core_numbers
local stream, group = KEYS[1], ARGV[1]
local time = redis.call('TIME')
local now = exact(tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
local dead = redis.call('ZCARD', KEYS[2])
local length = redis.pcall('XLEN', stream)
if type(length) ~= 'number' or length == 0 then
  return { 0, 0, dead, '', '', now }
end
local pending, lag, last = 0, nil, '0-0'
local groups = redis.pcall('XINFO', 'GROUPS', stream)
if type(groups) == 'table' and not groups.err then
  for _, g in ipairs(groups) do
    local fields = {}
    for i = 1, #g, 2 do
      fields[g[i]] = g[i + 1]
    end
    if fields['name'] == group then
      pending = tonumber(fields['pending'])
      last = fields['last-delivered-id']
      -- a nil reply (false) when Redis cannot tell
      if type(fields['lag']) == 'number' then
        lag = fields['lag']
      end
    end
  end
end
local head = redis.call('XRANGE', stream, '(' .. last, '+', 'COUNT', 1)[1]
local ready
if ARGV[2] ~= '1' then
  ready = math.max(0, length - pending)
elseif lag then
  ready = lag
elseif head then
  ready = #redis.call('XRANGE', stream, '(' .. last, '+', 'COUNT', 1000)
else
  ready = 0
end
if ready == 0 or not head then
  return { ready, pending, dead, '', '', now }
end
local element = ''
for i = 1, #head[2], 2 do
  if head[2][i] == 'e' then
    element = head[2][i + 1]
  end
end
return { ready, pending, dead, head[1], element, now }
