package io.github.redkit.test;

import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Reads a Redkit lock's record the way its scripts do, for tests: a lock's key outlives
 * its lease (it keeps the last fencing token), so whether the key exists no longer says
 * whether the lock is held.
 */
public final class LockRecords {

	private LockRecords() {
	}

	/**
	 * Whether a lock is held on Redis: its record names a holder whose lease has not
	 * ended on Redis' clock.
	 * @param redis the connection
	 * @param lockKey the lock's stored key
	 * @return whether it is held
	 */
	public static boolean held(StringRedisTemplate redis, String lockKey) {
		String value = redis.opsForValue().get(lockKey);
		if (value == null) {
			return false;
		}
		String[] fields = value.split("\\|", -1);
		if (fields.length != 4) {
			// the previous layout: a plain holder's token, the lease as the key's TTL
			return true;
		}
		Long now = redis
			.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time(TimeUnit.MICROSECONDS));
		return !fields[1].isEmpty() && now != null && Long.parseLong(fields[2]) > now;
	}

	/**
	 * How long a lock's lease still runs on Redis' clock, 0 when it is free.
	 * @param redis the connection
	 * @param lockKey the lock's stored key
	 * @return the remaining lease in milliseconds
	 */
	public static long remainingLeaseMillis(StringRedisTemplate redis, String lockKey) {
		String value = redis.opsForValue().get(lockKey);
		Long now = redis
			.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time(TimeUnit.MICROSECONDS));
		if (value == null || now == null || holder(redis, lockKey).isEmpty()) {
			return 0;
		}
		return Math.max(0, (Long.parseLong(value.split("\\|", -1)[2]) - now) / 1000);
	}

	/**
	 * The fencing token a lock's record keeps.
	 * @param redis the connection
	 * @param lockKey the lock's stored key
	 * @return the last fencing token, 0 when there is no record
	 */
	public static long fencingToken(StringRedisTemplate redis, String lockKey) {
		String value = redis.opsForValue().get(lockKey);
		return (value != null) ? Long.parseLong(value.split("\\|", -1)[0]) : 0;
	}

	/**
	 * The holder's token a lock's record names, empty when it names none.
	 * @param redis the connection
	 * @param lockKey the lock's stored key
	 * @return the holder's token
	 */
	public static String holder(StringRedisTemplate redis, String lockKey) {
		String value = redis.opsForValue().get(lockKey);
		return (value != null) ? value.split("\\|", -1)[1] : "";
	}

	/**
	 * Whether a lock's record says that someone waits for it (its release publishes).
	 * @param redis the connection
	 * @param lockKey the lock's stored key
	 * @return whether someone waits
	 */
	public static boolean waitedFor(StringRedisTemplate redis, String lockKey) {
		String value = redis.opsForValue().get(lockKey);
		return value != null && value.endsWith("|1");
	}

}
