package io.github.redkit.cache.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.redkit.cache.CachePolicy;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.cache.CacheStatistics;
import org.springframework.data.redis.cache.CacheStatisticsCollector;
import org.springframework.data.redis.cache.RedisCacheWriter;
import org.springframework.data.redis.connection.RedisConnection;

/**
 * A {@link RedisCacheWriter} around Spring's own that adds, per cache (see
 * {@link CachePolicy}): cluster-wide single flight for {@code @Cacheable(sync = true)},
 * probabilistic early refresh of hits, and serving the last value seen by this instance
 * when Redis fails. Plain reads and writes go straight to Spring's writer, so hits and
 * misses keep Spring's statistics.
 */
public class RedkitCacheWriter implements RedisCacheWriter {

	private static final Log logger = LogFactory.getLog(RedkitCacheWriter.class);

	private static final LuaScript<List> GET_WITH_TTL = LuaScript.load("cache_get_with_ttl", List.class);

	private final RedisCacheWriter delegate;

	private final Function<String, CachePolicy> policies;

	private final SingleFlight singleFlight;

	private final RedisScriptRunner runner;

	private final RedkitMetrics metrics;

	private final CacheStatisticsCollector statistics;

	private final StaleValues stale;

	private final EarlyRefresh earlyRefresh;

	/**
	 * Wraps Spring's cache writer.
	 * @param delegate Spring's writer (built with {@link ScanBatchStrategy})
	 * @param policies the policy of each cache, by name
	 * @param singleFlight the single-flight lock
	 * @param runner the script runner
	 * @param metrics where waits, refreshes and Redis errors are recorded
	 * @param staleEntries how many values are kept in memory for stale-on-error caches
	 */
	public RedkitCacheWriter(RedisCacheWriter delegate, Function<String, CachePolicy> policies,
			SingleFlight singleFlight, RedisScriptRunner runner, RedkitMetrics metrics, int staleEntries) {
		this.delegate = delegate;
		this.policies = policies;
		this.singleFlight = singleFlight;
		this.runner = runner;
		this.metrics = metrics;
		this.statistics = CacheStatisticsCollector.none();
		this.stale = new StaleValues(staleEntries);
		this.earlyRefresh = new EarlyRefresh();
	}

	// the same writer counting into another collector: the kept values and refresh state
	// stay shared
	private RedkitCacheWriter(RedkitCacheWriter writer, CacheStatisticsCollector statistics) {
		this.delegate = writer.delegate.withStatisticsCollector(statistics);
		this.policies = writer.policies;
		this.singleFlight = writer.singleFlight;
		this.runner = writer.runner;
		this.metrics = writer.metrics;
		this.statistics = statistics;
		this.stale = writer.stale;
		this.earlyRefresh = writer.earlyRefresh;
	}

	@Override
	public byte @Nullable [] get(String name, byte[] key) {
		return read(name, key, () -> this.delegate.get(name, key));
	}

	@Override
	public byte @Nullable [] get(String name, byte[] key, @Nullable Duration ttl) {
		return read(name, key, () -> this.delegate.get(name, key, ttl));
	}

	@Override
	@SuppressWarnings("NullAway") // null when Redis failed and nothing was kept, as the
									// plain get
	public byte[] get(String name, byte[] key, Supplier<byte[]> valueLoader, @Nullable Duration ttl,
			boolean timeToIdleEnabled) {
		CachePolicy policy = this.policies.apply(name);
		if (!policy.singleFlight() && !policy.earlyRefresh()) {
			return read(name, key, () -> this.delegate.get(name, key, valueLoader, ttl, timeToIdleEnabled));
		}
		try {
			if (policy.earlyRefresh()) {
				List<?> reply = this.runner.execute(GET_WITH_TTL, List.of(utf8(key)));
				byte[] value = (reply.get(0) != null) ? reply.get(0).toString().getBytes(StandardCharsets.UTF_8) : null;
				count(name, value != null);
				if (value != null) {
					remember(policy, name, key, value);
					long remaining = ((Number) reply.get(1)).longValue();
					return this.earlyRefresh.shouldRefresh(name, remaining, policy.earlyRefreshBeta())
							? refreshEarly(name, key, value, valueLoader, ttl, policy) : value;
				}
			}
			else {
				byte[] value = timeToIdleEnabled ? this.delegate.get(name, key, ttl) : this.delegate.get(name, key);
				if (value != null) {
					remember(policy, name, key, value);
					return value;
				}
			}
			return policy.singleFlight() ? loadOnce(name, key, valueLoader, ttl, policy)
					: loadAndPut(name, key, valueLoader, ttl, policy);
		}
		catch (DataAccessException ex) {
			byte[] kept = onRedisError(policy, name, key, ex);
			return (kept != null) ? kept : load(name, valueLoader);
		}
	}

	private byte[] refreshEarly(String name, byte[] key, byte[] current, Supplier<byte[]> loader,
			@Nullable Duration ttl, CachePolicy policy) {
		String lockKey = this.singleFlight.lockKey(key);
		String token = SingleFlight.newToken();
		if (!this.singleFlight.tryLock(lockKey, token, policy.lease())) {
			// someone else refreshes it; the current value is still valid
			return current;
		}
		try {
			this.metrics.increment(CacheMeters.EARLY_REFRESHES, "cache", name);
			return loadAndPut(name, key, loader, ttl, policy);
		}
		finally {
			this.singleFlight.unlock(lockKey, token, policy.lease());
		}
	}

	private byte[] loadOnce(String name, byte[] key, Supplier<byte[]> loader, @Nullable Duration ttl,
			CachePolicy policy) {
		String lockKey = this.singleFlight.lockKey(key);
		String token = SingleFlight.newToken();
		long start = System.nanoTime();
		long deadline = start + policy.waitTime().toNanos();
		long pauseMillis = 2;
		boolean waited = false;
		while (true) {
			if (this.singleFlight.tryLock(lockKey, token, policy.lease())) {
				try {
					byte[] filled = rawGet(key);
					if (filled != null) {
						if (waited) {
							// the holder filled it and let go between two of our attempts
							this.metrics.record(CacheMeters.SINGLE_FLIGHT_WAITS, System.nanoTime() - start, "cache",
									name, "outcome", "filled");
						}
						return filled;
					}
					this.metrics.increment(CacheMeters.SINGLE_FLIGHT_LOADS, "cache", name);
					return loadAndPut(name, key, loader, ttl, policy);
				}
				finally {
					this.singleFlight.unlock(lockKey, token, policy.lease());
				}
			}
			if (waited) {
				byte[] filled = rawGet(key);
				if (filled != null) {
					this.metrics.record(CacheMeters.SINGLE_FLIGHT_WAITS, System.nanoTime() - start, "cache", name,
							"outcome", "filled");
					return filled;
				}
			}
			long left = deadline - System.nanoTime();
			if (left <= 0) {
				this.metrics.record(CacheMeters.SINGLE_FLIGHT_WAITS, System.nanoTime() - start, "cache", name,
						"outcome", "timeout");
				return loadAndPut(name, key, loader, ttl, policy);
			}
			pause(Math.min(pauseMillis, Math.max(1, left / 1_000_000)));
			pauseMillis = Math.min(pauseMillis * 2, 50);
			waited = true;
		}
	}

	private byte[] loadAndPut(String name, byte[] key, Supplier<byte[]> loader, @Nullable Duration ttl,
			CachePolicy policy) {
		byte[] value = load(name, loader);
		if (value != null) {
			put(name, key, value, ttl);
		}
		return value;
	}

	private byte[] load(String name, Supplier<byte[]> loader) {
		long start = System.nanoTime();
		byte[] value = loader.get();
		this.earlyRefresh.recordLoad(name, System.nanoTime() - start);
		return value;
	}

	private byte @Nullable [] rawGet(byte[] key) {
		// not counted as a hit or a miss: the caller's get was already counted
		return this.delegate.execute((RedisConnection connection) -> connection.stringCommands().get(key));
	}

	private byte @Nullable [] read(String name, byte[] key, Supplier<byte[]> reader) {
		CachePolicy policy = this.policies.apply(name);
		if (!policy.staleOnError()) {
			return reader.get();
		}
		try {
			byte[] value = reader.get();
			this.stale.remember(name, key, value);
			return value;
		}
		catch (DataAccessException ex) {
			return onRedisError(policy, name, key, ex);
		}
	}

	private byte @Nullable [] onRedisError(CachePolicy policy, String name, byte[] key, DataAccessException ex) {
		if (!policy.staleOnError()) {
			throw ex;
		}
		byte[] kept = this.stale.recall(name, key);
		this.metrics.increment(CacheMeters.REDIS_ERRORS, "cache", name, "outcome", (kept != null) ? "stale" : "miss");
		logger.warn("Redis failed reading cache '" + name + "'; "
				+ ((kept != null) ? "serving the last value seen" : "no value kept, treating as a miss") + ": "
				+ ex.getMessage());
		return kept;
	}

	private void remember(CachePolicy policy, String name, byte[] key, byte[] value) {
		if (policy.staleOnError()) {
			this.stale.remember(name, key, value);
		}
	}

	private void count(String name, boolean hit) {
		this.statistics.incGets(name);
		if (hit) {
			this.statistics.incHits(name);
		}
		else {
			this.statistics.incMisses(name);
		}
	}

	@Override
	public void put(String name, byte[] key, byte[] value, @Nullable Duration ttl) {
		CachePolicy policy = this.policies.apply(name);
		remember(policy, name, key, value);
		try {
			this.delegate.put(name, key, value, ttl);
		}
		catch (DataAccessException ex) {
			if (!policy.staleOnError()) {
				throw ex;
			}
			this.metrics.increment(CacheMeters.REDIS_ERRORS, "cache", name, "outcome", "write");
			logger.warn("Redis failed writing cache '" + name + "'; kept in memory only: " + ex.getMessage());
		}
	}

	@Override
	public boolean supportsAsyncRetrieve() {
		return this.delegate.supportsAsyncRetrieve();
	}

	@Override
	public CompletableFuture<byte[]> retrieve(String name, byte[] key, @Nullable Duration ttl) {
		return this.delegate.retrieve(name, key, ttl);
	}

	@Override
	public CompletableFuture<Void> store(String name, byte[] key, byte[] value, @Nullable Duration ttl) {
		return this.delegate.store(name, key, value, ttl);
	}

	@Override
	public byte @Nullable [] putIfAbsent(String name, byte[] key, byte[] value, @Nullable Duration ttl) {
		return this.delegate.putIfAbsent(name, key, value, ttl);
	}

	@Override
	public void remove(String name, byte[] key) {
		this.stale.forget(name, key);
		this.delegate.remove(name, key);
	}

	@Override
	public void evict(String name, byte[] key) {
		this.stale.forget(name, key);
		this.delegate.evict(name, key);
	}

	@Override
	public boolean evictIfPresent(String name, byte[] key) {
		this.stale.forget(name, key);
		return this.delegate.evictIfPresent(name, key);
	}

	@Override
	public void clean(String name, byte[] pattern) {
		this.stale.forgetAll(name);
		this.delegate.clean(name, pattern);
	}

	@Override
	public void clear(String name, byte[] pattern) {
		this.stale.forgetAll(name);
		this.delegate.clear(name, pattern);
	}

	@Override
	public boolean invalidate(String name, byte[] pattern) {
		this.stale.forgetAll(name);
		return this.delegate.invalidate(name, pattern);
	}

	@Override
	public void clearStatistics(String name) {
		this.delegate.clearStatistics(name);
	}

	@Override
	public CacheStatistics getCacheStatistics(String cacheName) {
		return this.delegate.getCacheStatistics(cacheName);
	}

	@Override
	public <T> T execute(Function<RedisConnection, T> callback) {
		return this.delegate.execute(callback);
	}

	@Override
	public RedisCacheWriter withStatisticsCollector(CacheStatisticsCollector collector) {
		return new RedkitCacheWriter(this, collector);
	}

	private static String utf8(byte[] key) {
		return new String(key, StandardCharsets.UTF_8);
	}

	private static void pause(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for another instance's cache value", ex);
		}
	}

}
