-- Acquires a lock and hands out its fencing token, in one round trip.
-- KEYS[1] the lock, KEYS[2] its fencing counter, KEYS[3] its "someone waits" flag (one hash tag)
-- ARGV[1] the holder's random token, ARGV[2] the lease in ms, ARGV[3] the counter's TTL in ms,
-- ARGV[4] how long the caller is still willing to wait in ms (0 = it will not wait)
-- Returns the fencing token (> 0) when acquired, else minus the lock's remaining lease in ms
-- (0 = it just expired: try again at once).
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
	local fence = redis.call('incr', KEYS[2])
	if fence == 1 then
		-- the counter is new or expired: restart it from Redis time in microseconds, above
		-- every token handed out before (fewer than one acquisition per microsecond)
		local now = redis.call('time')
		local start = now[1] .. string.format('%06d', tonumber(now[2]))
		redis.call('set', KEYS[2], start)
		fence = tonumber(start)
	end
	redis.call('pexpire', KEYS[2], ARGV[3])
	return fence
end
local remaining = redis.call('pttl', KEYS[1])
if remaining < 0 then
	remaining = 0
end
local wait = tonumber(ARGV[4])
if wait > 0 then
	-- tells the holder's release to publish: nobody pays for PUBLISH when nobody waits
	redis.call('set', KEYS[3], '1', 'PX', math.max(remaining, wait, 1))
end
return -remaining
