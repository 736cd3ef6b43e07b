package io.github.redkit.sample.retwis;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * "Has this name been taken?" answered by a {@link BloomFilter} of every user name, sized
 * from {@code sample.names.expected} and {@code sample.names.false-positive-rate}. It
 * spares the {@code users} hash lookup for names that are surely free; the hash stays the
 * authority (see {@link Users#register}). When the filter is missing (first start, or its
 * key expired after 30 days without a sign-up) it is rebuilt from the hash, and meanwhile
 * every name counts as "maybe taken", which only costs the hash lookup.
 */
@Service
public class TakenNames {

	private final StringRedisTemplate redis;

	private final BloomFilter filter;

	private final AtomicBoolean building = new AtomicBoolean();

	public TakenNames(StringRedisTemplate redis, @Value("${sample.names.expected:100000}") long expected,
			@Value("${sample.names.false-positive-rate:0.01}") double falsePositiveRate) {
		this.redis = redis;
		this.filter = new BloomFilter(redis, Keys.PREFIX + "names", expected, falsePositiveRate, Duration.ofDays(30));
	}

	/**
	 * Whether a name may be taken.
	 * @param name the name
	 * @return {@code false} only when it is surely free
	 */
	public boolean maybeTaken(String name) {
		return switch (this.filter.lookup(name)) {
			case ABSENT -> false;
			case MAYBE_PRESENT -> true;
			case NOT_BUILT -> {
				rebuild();
				yield true;
			}
		};
	}

	/**
	 * Notes a name as taken; call it before the name is written to the {@code users}
	 * hash, so that the filter never lacks a name the hash holds.
	 * @param name the name
	 */
	public void add(String name) {
		this.filter.add(name);
	}

	@EventListener(ApplicationReadyEvent.class)
	void buildIfMissing() {
		if (this.filter.lookup("") == BloomFilter.Lookup.NOT_BUILT) {
			rebuild();
		}
	}

	// one build at a time per instance; other callers use the hash meanwhile
	private void rebuild() {
		if (this.building.compareAndSet(false, true)) {
			try (Cursor<Map.Entry<Object, Object>> users = this.redis.opsForHash()
				.scan(Keys.USERS, ScanOptions.scanOptions().count(1000).build())) {
				this.filter.build(users.stream().map((user) -> (String) user.getKey()));
			}
			finally {
				this.building.set(false);
			}
		}
	}

}
