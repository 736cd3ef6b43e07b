-- Claims one step of an operation, deciding in one call.
-- KEYS[1] state hash (step -> "d|<fingerprint>" or "d#<token>|<fingerprint>" when done,
--                           "p|<lease deadline ms>|<ttl ms>|<token>|<fingerprint>" while in progress)
-- KEYS[2] results hash (step -> JSON of the step's result)
-- ARGV[1] step, ARGV[2] ttl ms, ARGV[3] lease ms, ARGV[4] token, ARGV[5] fingerprint ('' = none),
-- ARGV[6..] the steps that must be recorded before this one (exactly)
-- Returns {outcome, stored result or false, {done steps}, {in-progress steps}}
--#include core_numbers
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local step = ARGV[1]
local fingerprint = ARGV[5]

local done, live = {}, {}
local doneList, liveList = {}, {}
local mine = nil
local entries = redis.call('HGETALL', KEYS[1])
for i = 1, #entries, 2 do
  local name, value = entries[i], entries[i + 1]
  local kind = string.sub(value, 1, 1)
  local alive = (kind == 'd')
  if not alive then
    local deadline = string.match(value, '^p|(%d+)|')
    alive = deadline ~= nil and tonumber(deadline) > now
  end
  if alive then
    if name == step then
      mine = value
    elseif kind == 'd' then
      done[name] = true
      doneList[#doneList + 1] = name
    else
      live[name] = true
      liveList[#liveList + 1] = name
    end
  end
end

if mine then
  -- a fingerprint is the last field of every form
  local stored = string.match(mine, '^d|(.*)$') or string.match(mine, '^d#[^|]*|(.*)$')
    or string.match(mine, '^p|%d+|%d+|[^|]*|(.*)$')
  if fingerprint ~= '' and stored ~= '' and stored ~= fingerprint then
    return {'REUSED', false, doneList, liveList}
  end
  if string.sub(mine, 1, 1) == 'd' then
    return {'DUPLICATE', redis.call('HGET', KEYS[2], step) or false, doneList, liveList}
  end
  if string.match(mine, '^p|%d+|%d+|([^|]*)|') == ARGV[4] then
    -- this very claim, delivered again (its reply was lost and the client sent the call
    -- again on a new connection): it holds the step, with the lease the first delivery set
    return {'CLAIMED', false, doneList, liveList}
  end
  return {'IN_PROGRESS', false, doneList, liveList}
end

-- claimable when the done steps are exactly the expected ones; undecided (in progress)
-- while running steps could still make them so: done <= after <= done + live
local after = {}
local afterCount = 0
for i = 6, #ARGV do
  if not after[ARGV[i]] then
    after[ARGV[i]] = true
    afterCount = afterCount + 1
  end
end
for name in pairs(done) do
  if not after[name] then
    return {'OUT_OF_ORDER', false, doneList, liveList}
  end
end
for name in pairs(after) do
  if not done[name] and not live[name] then
    return {'OUT_OF_ORDER', false, doneList, liveList}
  end
end
if #liveList > 0 then
  return {'IN_PROGRESS', false, doneList, liveList}
end

local ttl = tonumber(ARGV[2])
local lease = tonumber(ARGV[3])
redis.call('HSET', KEYS[1], step, 'p|' .. exact(now + lease) .. '|' .. ARGV[2] .. '|' .. ARGV[4] .. '|' .. fingerprint)
local keep = math.max(ttl, lease)
if redis.call('PTTL', KEYS[1]) < keep then
  redis.call('PEXPIRE', KEYS[1], exact(keep))
end
return {'CLAIMED', false, doneList, liveList}
