package io.github.redkit.resilience4j;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redkit.core.internal.BackgroundReads;
import io.github.redkit.ratelimit.RateLimitPolicy;

/**
 * The permits left as last read in the background, so that a scrape of Resilience4j's
 * {@code available.permissions} gauge never waits for Redis: one value per limit and
 * identifier (one per Resilience4j instance), read one at a time on one thread, which
 * ends when the application context closes.
 */
final class BackgroundPermitsLeft implements PermitsLeft, AutoCloseable {

	private final PermitsLeft reader;

	private final BackgroundReads reads;

	private final Map<List<String>, Entry> entries = new ConcurrentHashMap<>();

	BackgroundPermitsLeft(PermitsLeft reader, BackgroundReads reads) {
		this.reader = reader;
		this.reads = reads;
	}

	@Override
	public long read(String limitName, RateLimitPolicy policy, String key) {
		Entry entry = this.entries.computeIfAbsent(List.of(limitName, key), (k) -> new Entry(limitName, key, policy));
		// the next read uses the policy in force: changeLimitForPeriod redefines it
		entry.policy = policy;
		Long left = entry.left.get();
		return (left != null) ? left : 0;
	}

	/**
	 * Ends the reads' thread, with the application context.
	 */
	@Override
	public void close() {
		this.reads.close();
	}

	private final class Entry {

		private volatile RateLimitPolicy policy;

		private final BackgroundReads.Value<Long> left;

		Entry(String limitName, String key, RateLimitPolicy policy) {
			this.policy = policy;
			this.left = BackgroundPermitsLeft.this.reads
				.value(() -> BackgroundPermitsLeft.this.reader.read(limitName, this.policy, key));
		}

	}

}
