package io.github.redkit.testsupport;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.jspecify.annotations.Nullable;

/**
 * Reads a Redkit lock's record the way its scripts do, for tests: a lock's key outlives
 * its lease (it keeps the last fencing token), so whether the key exists no longer says
 * whether the lock is held. The record is binary ({@code lock_record.lua}): a version
 * byte 1, the fencing token and the lease end (Redis time in µs) as little-endian
 * doubles, 1 when someone waits else 0, then the holder's token (empty when free) and a
 * zero byte.
 */
public final class LockRecords {

	private static final int VERSION = 1;

	private static final int HEADER = 18;

	private LockRecords() {
	}

	/**
	 * The fields of a lock's record as text, the way tests compare them: the fencing
	 * token, the holder's token ({@code ""} when free), the lease end in µs ({@code "0"}
	 * when free) and {@code "1"} when someone waits, else {@code ""}.
	 * @param redis the connection
	 * @param lockKey the lock's stored key
	 * @return the fields, {@code null} when there is no record or the value is a plain
	 * token of the previous layout
	 */
	public static String @Nullable [] fields(StringRedisTemplate redis, String lockKey) {
		byte[] value = raw(redis, lockKey);
		if (value == null || value.length <= HEADER || value[0] != VERSION) {
			return null;
		}
		ByteBuffer buffer = ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN);
		long fence = (long) buffer.getDouble(1);
		long ends = (long) buffer.getDouble(9);
		boolean waits = value[17] == 1;
		String holder = new String(value, HEADER, value.length - HEADER - 1, StandardCharsets.UTF_8);
		return new String[] { Long.toString(fence), holder, Long.toString(ends), waits ? "1" : "" };
	}

	/**
	 * A record's bytes, as the lock scripts write them.
	 * @param fence the fencing token
	 * @param holder the holder's token, empty when free
	 * @param leaseEndMicros the lease end in Redis time (µs), 0 when free
	 * @param waits whether someone waits
	 * @return the bytes
	 */
	public static byte[] encode(long fence, String holder, long leaseEndMicros, boolean waits) {
		byte[] token = holder.getBytes(StandardCharsets.UTF_8);
		return ByteBuffer.allocate(HEADER + token.length + 1)
			.order(ByteOrder.LITTLE_ENDIAN)
			.put((byte) VERSION)
			.putDouble(fence)
			.putDouble(leaseEndMicros)
			.put((byte) (waits ? 1 : 0))
			.put(token)
			.put((byte) 0)
			.array();
	}

	/**
	 * Writes a lock's record (no TTL), as a lock script would.
	 * @param redis the connection
	 * @param lockKey the lock's stored key
	 * @param fence the fencing token
	 * @param holder the holder's token, empty when free
	 * @param leaseEndMicros the lease end in Redis time (µs), 0 when free
	 * @param waits whether someone waits
	 */
	public static void write(StringRedisTemplate redis, String lockKey, long fence, String holder, long leaseEndMicros,
			boolean waits) {
		byte[] key = lockKey.getBytes(StandardCharsets.UTF_8);
		byte[] value = encode(fence, holder, leaseEndMicros, waits);
		redis.execute((RedisCallback<Boolean>) (connection) -> connection.stringCommands().set(key, value));
	}

	/**
	 * The stored value of a lock's key as it is (a record is binary: not a string).
	 * @param redis the connection
	 * @param lockKey the lock's stored key
	 * @return the bytes, {@code null} when there is none
	 */
	public static byte @Nullable [] raw(StringRedisTemplate redis, String lockKey) {
		byte[] key = lockKey.getBytes(StandardCharsets.UTF_8);
		return redis.execute((RedisCallback<byte[]>) (connection) -> connection.stringCommands().get(key));
	}

	/**
	 * Whether a lock is held on Redis: its record names a holder whose lease has not
	 * ended on Redis' clock.
	 * @param redis the connection
	 * @param lockKey the lock's stored key
	 * @return whether it is held
	 */
	public static boolean held(StringRedisTemplate redis, String lockKey) {
		byte[] value = raw(redis, lockKey);
		if (value == null) {
			return false;
		}
		String[] fields = fields(redis, lockKey);
		if (fields == null) {
			// the previous layout: a plain holder's token, the lease as the key's TTL
			return true;
		}
		return !fields[1].isEmpty() && Long.parseLong(fields[2]) > now(redis);
	}

	/**
	 * How long a lock's lease still runs on Redis' clock, 0 when it is free.
	 * @param redis the connection
	 * @param lockKey the lock's stored key
	 * @return the remaining lease in milliseconds
	 */
	public static long remainingLeaseMillis(StringRedisTemplate redis, String lockKey) {
		String[] fields = fields(redis, lockKey);
		if (fields == null || fields[1].isEmpty()) {
			return 0;
		}
		return Math.max(0, (Long.parseLong(fields[2]) - now(redis)) / 1000);
	}

	/**
	 * The fencing token a lock's record keeps.
	 * @param redis the connection
	 * @param lockKey the lock's stored key
	 * @return the last fencing token, 0 when there is no record
	 */
	public static long fencingToken(StringRedisTemplate redis, String lockKey) {
		String[] fields = fields(redis, lockKey);
		return (fields != null) ? Long.parseLong(fields[0]) : 0;
	}

	/**
	 * The holder's token a lock's record names, empty when it names none.
	 * @param redis the connection
	 * @param lockKey the lock's stored key
	 * @return the holder's token
	 */
	public static String holder(StringRedisTemplate redis, String lockKey) {
		String[] fields = fields(redis, lockKey);
		return (fields != null) ? fields[1] : "";
	}

	/**
	 * Whether a lock's record says that someone waits for it (its release publishes).
	 * @param redis the connection
	 * @param lockKey the lock's stored key
	 * @return whether someone waits
	 */
	public static boolean waitedFor(StringRedisTemplate redis, String lockKey) {
		String[] fields = fields(redis, lockKey);
		return fields != null && fields[3].equals("1");
	}

	private static long now(StringRedisTemplate redis) {
		Long now = redis
			.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time(TimeUnit.MICROSECONDS));
		return (now != null) ? now : Long.MAX_VALUE;
	}

}
