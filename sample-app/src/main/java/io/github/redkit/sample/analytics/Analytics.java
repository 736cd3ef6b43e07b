package io.github.redkit.sample.analytics;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * Seed 001's counters: unique visitors per day (HyperLogLog), active users per minute (a
 * bitmap indexed by user id, counted with {@code BITCOUNT}) and posts per minute (a
 * sorted set scored by time whose members are {@code <time>:<post id>}, unique even when
 * two posts share a millisecond). Every key gets a TTL when written.
 */
@Service
public class Analytics {

	static final String PREFIX = "analytics:";

	private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyyMMdd").withZone(ZoneOffset.UTC);

	private static final DateTimeFormatter MINUTE = DateTimeFormatter.ofPattern("yyyyMMddHHmm")
		.withZone(ZoneOffset.UTC);

	private static final String POSTS = PREFIX + "posts";

	private final StringRedisTemplate redis;

	public Analytics(StringRedisTemplate redis) {
		this.redis = redis;
	}

	public void visit(String visitor) {
		String key = PREFIX + "visitors:" + DAY.format(Instant.now());
		this.redis.opsForHyperLogLog().add(key, visitor);
		this.redis.expire(key, Duration.ofDays(8));
	}

	public void active(long userId) {
		String key = PREFIX + "active:" + MINUTE.format(Instant.now());
		this.redis.opsForValue().setBit(key, userId, true);
		this.redis.expire(key, Duration.ofDays(2));
	}

	public void postCreated(long postId, long time) {
		this.redis.opsForZSet().add(POSTS, time + ":" + postId, time);
		this.redis.opsForZSet().removeRangeByScore(POSTS, 0, time - Duration.ofDays(1).toMillis());
		this.redis.expire(POSTS, Duration.ofDays(2));
	}

	public Map<String, Object> summary(int minutes) {
		Instant now = Instant.now();
		Map<String, Object> summary = new LinkedHashMap<>();
		summary.put("uniqueVisitorsToday", this.redis.opsForHyperLogLog().size(PREFIX + "visitors:" + DAY.format(now)));
		Map<String, Long> active = new LinkedHashMap<>();
		Map<String, Long> posts = new LinkedHashMap<>();
		long thisMinute = now.toEpochMilli() / 60_000 * 60_000;
		for (int i = 0; i < minutes; i++) {
			long start = thisMinute - i * 60_000L;
			String minute = MINUTE.format(Instant.ofEpochMilli(start));
			active.put(minute, bitCount(PREFIX + "active:" + minute));
			posts.put(minute, this.redis.opsForZSet().count(POSTS, start, start + 59_999));
		}
		summary.put("activeUsersPerMinute", active);
		summary.put("postsPerMinute", posts);
		return summary;
	}

	private long bitCount(String key) {
		Long count = this.redis.execute(
				(org.springframework.data.redis.core.RedisCallback<Long>) (connection) -> connection.stringCommands()
					.bitCount(key.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
		return (count != null) ? count : 0;
	}

}
