-- Reads what is recorded for an operation.
-- KEYS[1] state hash, KEYS[2] results hash (see idempotency_claim.lua)
-- ARGV[1] a step whose result to return ('' = none)
-- Returns {{done steps}, result JSON of ARGV[1] or false}
local done = {}
local entries = redis.call('HGETALL', KEYS[1])
for i = 1, #entries, 2 do
  if string.sub(entries[i + 1], 1, 1) == 'd' then
    done[#done + 1] = entries[i]
  end
end
local result = false
if ARGV[1] ~= '' and redis.call('HGET', KEYS[1], ARGV[1]) and string.sub(redis.call('HGET', KEYS[1], ARGV[1]), 1, 1) == 'd' then
  result = redis.call('HGET', KEYS[2], ARGV[1]) or false
end
return {done, result}
