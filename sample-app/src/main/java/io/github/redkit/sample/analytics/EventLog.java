package io.github.redkit.sample.analytics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.Limit;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Service;

/**
 * Seed 001's time series in a lexicographic sorted set: every member has score 0 and
 * reads {@code <time>:<event>}, so Redis orders members by their bytes, that is by time
 * when every time has the same number of digits (zero-padded to 13: epoch millis until
 * the year 2286). Equal members would overwrite each other: each event here carries an id
 * (a user or a post), so two events never share a member. Kept one day.
 */
@Service
public class EventLog {

	static final String KEY = Analytics.PREFIX + "events";

	private static final Duration RETENTION = Duration.ofDays(1);

	private static final Duration TTL = Duration.ofDays(2);

	// add, trim what is older than the retention and renew the TTL in one round trip
	private static final RedisScript<Long> APPEND = RedisScript.of("""
			local added = redis.call('ZADD', KEYS[1], 0, ARGV[1])
			redis.call('ZREMRANGEBYLEX', KEYS[1], '-', '(' .. ARGV[2])
			redis.call('PEXPIRE', KEYS[1], ARGV[3])
			return added
			""", Long.class);

	private final StringRedisTemplate redis;

	public EventLog(StringRedisTemplate redis) {
		this.redis = redis;
	}

	/**
	 * Appends an event.
	 * @param time when it happened (epoch millis)
	 * @param event what happened, with an id that makes it unique at that time (e.g.
	 * {@code signup:42:alice})
	 */
	public void append(long time, String event) {
		this.redis.execute(APPEND, List.of(KEY), timestamp(time) + ":" + event, timestamp(time - RETENTION.toMillis()),
				Long.toString(TTL.toMillis()));
	}

	/**
	 * The events between two times, both included, oldest first.
	 * @param from the first millisecond
	 * @param to the last millisecond, included
	 * @param limit at most this many events
	 * @return the events
	 */
	public List<Event> between(long from, long to, int limit) {
		Set<String> members = this.redis.opsForZSet().rangeByLex(KEY, range(from, to), Limit.limit().count(limit));
		List<Event> events = new ArrayList<>();
		if (members != null) {
			for (String member : members) {
				int colon = member.indexOf(':');
				events.add(new Event(Long.parseLong(member.substring(0, colon)), member.substring(colon + 1)));
			}
		}
		return events;
	}

	/**
	 * How many events lie between two times, both included ({@code ZLEXCOUNT}).
	 * @param from the first millisecond
	 * @param to the last millisecond, included
	 * @return the count
	 */
	public long count(long from, long to) {
		Long count = this.redis.opsForZSet().lexCount(KEY, range(from, to));
		return (count != null) ? count : 0;
	}

	// "[<to>" would miss the events of the last millisecond: "<to>:x" sorts after "<to>",
	// since Redis compares bytes, not times. Up to "(<to + 1 ms>" includes them.
	static Range<String> range(long from, long to) {
		return Range.rightOpen(timestamp(from), timestamp(to + 1));
	}

	static String timestamp(long millis) {
		return String.format("%013d", millis);
	}

	/**
	 * One event of the log.
	 *
	 * @param time when it happened (epoch millis)
	 * @param event what happened
	 */
	public record Event(long time, String event) {

	}

}
