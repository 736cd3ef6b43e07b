package io.github.redkit.sample.analytics;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Service;

/**
 * Seed 001's time series in a bitfield: API requests per minute of a UTC day, one
 * unsigned byte per minute ({@code BITFIELD key INCRBY u8 #minute 1}) in one 1,440-byte
 * string per day. A slot saturates at 255 ({@code OVERFLOW SAT}) instead of wrapping to
 * 0. A day reads back with one {@code GETRANGE}; minutes nobody wrote read as 0, so "no
 * request" and "not recorded" look the same.
 */
@Service
public class VisitsPerMinute {

	/** Minutes in a day, so bytes in a day's key. */
	public static final int MINUTES = 1440;

	static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyyMMdd").withZone(ZoneOffset.UTC);

	private static final Duration TTL = Duration.ofDays(8);

	// one round trip, and the key never exists without its TTL
	private static final RedisScript<Long> INCREMENT = RedisScript.of("""
			local n = redis.call('BITFIELD', KEYS[1], 'OVERFLOW', 'SAT', 'INCRBY', 'u8', '#' .. ARGV[1], 1)
			redis.call('PEXPIRE', KEYS[1], ARGV[2])
			return n[1]
			""", Long.class);

	private final StringRedisTemplate redis;

	public VisitsPerMinute(StringRedisTemplate redis) {
		this.redis = redis;
	}

	/**
	 * Counts one visit in the minute it happened.
	 * @param at when it happened
	 * @return the minute's count after it, at most 255
	 */
	public long record(Instant at) {
		long minute = Math.floorMod(at.getEpochSecond() / 60, MINUTES);
		Long count = this.redis.execute(INCREMENT, List.of(key(DAY.format(at))), Long.toString(minute),
				Long.toString(TTL.toMillis()));
		return (count != null) ? count : 0;
	}

	/**
	 * The counts of a range of minutes of a day.
	 * @param day the UTC day
	 * @param from the first minute (0 = 00:00)
	 * @param to the last minute, included (at most 1439)
	 * @return one count per minute, 0 where nothing was recorded
	 */
	public int[] counts(LocalDate day, int from, int to) {
		byte[] key = key(DAY.format(day)).getBytes(StandardCharsets.UTF_8);
		// a bitfield is a string: GETRANGE reads many u8 slots at once (BITFIELD GET
		// would need one GET per slot); it stops at the last byte written
		byte[] bytes = this.redis
			.execute((RedisCallback<byte[]>) (connection) -> connection.stringCommands().getRange(key, from, to));
		int[] counts = new int[to - from + 1];
		for (int i = 0; bytes != null && i < bytes.length && i < counts.length; i++) {
			counts[i] = Byte.toUnsignedInt(bytes[i]);
		}
		return counts;
	}

	static String key(String day) {
		return Analytics.PREFIX + "visits:" + day;
	}

}
