-- Token bucket as GCRA (generic cell rate algorithm): each window is a bucket of `limit` tokens that
-- refills at limit/period; its state is the theoretical arrival time (TAT, ms). Every bucket of every
-- identifier is checked before any is charged.
-- KEYS: one hash per identifier; field '<period_ms>:t' = the TAT of that window's bucket.
-- ARGV: cost, n (windows), then limit_j, period_ms_j for each window
-- returns {allowed, remaining, retry_after_ms, reset_after_ms, limiting window (0-based)}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local cost = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local fields = {}
for j = 1, n do
  fields[j] = ARGV[2 + 2 * j] .. ':t'
end
local allowed, remaining, retry, reset, limiting = 1, nil, 0, 0, 0
local updates, ttls = {}, {}
for k = 1, #KEYS do
  local state = redis.call('HMGET', KEYS[k], unpack(fields))
  local update, ttl = {}, 1
  for j = 1, n do
    local limit = tonumber(ARGV[1 + 2 * j])
    local period = tonumber(ARGV[2 + 2 * j])
    local interval = period / limit
    local tat = tonumber(state[j]) or now
    if tat < now then tat = now end
    local new_tat = tat + cost * interval
    local left = math.floor((period - (new_tat - now)) / interval + 1e-9)
    local full_in = new_tat - now
    if new_tat - period > now then
      local wait = math.max(math.ceil(new_tat - period - now), 1)
      if allowed == 1 or wait > retry then retry = wait; limiting = j - 1 end
      allowed = 0
      left = math.max(math.floor((period - (tat - now)) / interval + 1e-9), 0)
      full_in = tat - now
    end
    if remaining == nil or left < remaining then
      remaining = left
      reset = math.ceil(full_in)
      if allowed == 1 then limiting = j - 1 end
    end
    update[2 * j - 1], update[2 * j] = fields[j], string.format('%.3f', new_tat)
    ttl = math.max(ttl, math.ceil(new_tat - now))
  end
  updates[k], ttls[k] = update, ttl
end
if allowed == 1 then
  for k = 1, #KEYS do
    redis.call('HSET', KEYS[k], unpack(updates[k]))
    redis.call('PEXPIRE', KEYS[k], ttls[k])
  end
end
return {allowed, remaining, retry, reset, limiting}
