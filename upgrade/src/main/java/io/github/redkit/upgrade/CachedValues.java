package io.github.redkit.upgrade;

import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import org.springframework.cache.annotation.Cacheable;

/**
 * A {@code @Cacheable(sync = true)} method, as a user writes one: Redkit's single flight
 * lets one caller of the whole fleet load a missing value (under {@code cache_lock}),
 * whichever version it runs, and the others wait for it. Each load is written with the
 * value it returns.
 */
public class CachedValues {

	static final String CACHE = "upgrade-cache";

	private volatile @Nullable HistoryLog history;

	private volatile String instance = "";

	public void writeTo(HistoryLog history, String instance) {
		this.history = history;
		this.instance = instance;
	}

	@Cacheable(cacheNames = CACHE, sync = true)
	public String value(String key) {
		long start = HistoryLog.micros();
		// long enough that callers of both versions arrive while it loads
		LockSupport.parkNanos(3_000_000 + ThreadLocalRandom.current().nextInt(10_000_000));
		String value = this.instance + "@" + start;
		HistoryLog history = this.history;
		if (history != null) {
			history.write("cache", "load", key, start, HistoryLog.micros(), Map.of("outcome", "ok", "value", value));
		}
		return value;
	}

}
