package io.github.redkit.autoconfigure.cache;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Properties of Redkit's customization of Spring Boot's Redis cache manager.
 */
@ConfigurationProperties("redkit.cache")
public class RedkitCacheProperties {

	/** Whether Redkit customizes Spring Boot's Redis cache manager. */
	private boolean enabled = true;

	/**
	 * Time to live of the entries of caches without their own; overrides
	 * spring.cache.redis.time-to-live.
	 */
	private Duration defaultTtl = Duration.ofMinutes(10);

	/**
	 * Share of the TTL cut at random from each entry ("10%" or "0.1"), so entries written
	 * together expire apart.
	 */
	private String ttlJitter = "10%";

	/** Whether null results are cached (as a JSON null marker). */
	private boolean cacheNulls = true;

	/**
	 * Whether values are stored as JSON (never JDK serialization); false keeps Spring's
	 * configured serializer.
	 */
	private boolean jsonValues = true;

	/**
	 * Packages whose types may be read back from JSON; empty allows any type (trust what
	 * is in Redis).
	 */
	private List<String> trustedPackages = List.of();

	/**
	 * Whether Spring's cache statistics (hits, misses, puts) are collected, for the cache
	 * metrics.
	 */
	private boolean enableStatistics = true;

	/** Keys per SCAN batch when a cache is cleared (never KEYS). */
	private int clearBatchSize = 500;

	/** Single flight of @Cacheable(sync = true) across instances. */
	private final SingleFlight singleFlight = new SingleFlight();

	/** Probabilistic early refresh of hits (only for @Cacheable(sync = true)). */
	private final EarlyRefresh earlyRefresh = new EarlyRefresh();

	/** Serving the last value this instance saw when Redis fails. */
	private final StaleOnError staleOnError = new StaleOnError();

	/** Per-cache settings, by cache name. */
	private Map<String, CacheSettings> caches = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getDefaultTtl() {
		return this.defaultTtl;
	}

	public void setDefaultTtl(Duration defaultTtl) {
		this.defaultTtl = defaultTtl;
	}

	public String getTtlJitter() {
		return this.ttlJitter;
	}

	public void setTtlJitter(String ttlJitter) {
		this.ttlJitter = ttlJitter;
	}

	public boolean isCacheNulls() {
		return this.cacheNulls;
	}

	public void setCacheNulls(boolean cacheNulls) {
		this.cacheNulls = cacheNulls;
	}

	public boolean isJsonValues() {
		return this.jsonValues;
	}

	public void setJsonValues(boolean jsonValues) {
		this.jsonValues = jsonValues;
	}

	public List<String> getTrustedPackages() {
		return this.trustedPackages;
	}

	public void setTrustedPackages(List<String> trustedPackages) {
		this.trustedPackages = trustedPackages;
	}

	public boolean isEnableStatistics() {
		return this.enableStatistics;
	}

	public void setEnableStatistics(boolean enableStatistics) {
		this.enableStatistics = enableStatistics;
	}

	public int getClearBatchSize() {
		return this.clearBatchSize;
	}

	public void setClearBatchSize(int clearBatchSize) {
		this.clearBatchSize = clearBatchSize;
	}

	public SingleFlight getSingleFlight() {
		return this.singleFlight;
	}

	public EarlyRefresh getEarlyRefresh() {
		return this.earlyRefresh;
	}

	public StaleOnError getStaleOnError() {
		return this.staleOnError;
	}

	public Map<String, CacheSettings> getCaches() {
		return this.caches;
	}

	public void setCaches(Map<String, CacheSettings> caches) {
		this.caches = caches;
	}

	/**
	 * Single flight across instances.
	 */
	public static class SingleFlight {

		/**
		 * Whether only one instance computes a missing value of a @Cacheable(sync = true)
		 * method.
		 */
		private boolean enabled = true;

		/**
		 * Longest wait for another instance's value; then the caller computes it itself.
		 */
		private Duration waitTime = Duration.ofSeconds(5);

		/** Lifetime of the lock if its holder dies while computing. */
		private Duration lease = Duration.ofSeconds(30);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getWaitTime() {
			return this.waitTime;
		}

		public void setWaitTime(Duration waitTime) {
			this.waitTime = waitTime;
		}

		public Duration getLease() {
			return this.lease;
		}

		public void setLease(Duration lease) {
			this.lease = lease;
		}

	}

	/**
	 * Probabilistic early expiration.
	 */
	public static class EarlyRefresh {

		/**
		 * Whether hits of every cache may be refreshed early (per cache:
		 * caches.<name>.early-refresh).
		 */
		private boolean enabled;

		/** How eagerly to refresh: 1.0 is the usual value, higher refreshes earlier. */
		private double beta = 1.0;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public double getBeta() {
			return this.beta;
		}

		public void setBeta(double beta) {
			this.beta = beta;
		}

	}

	/**
	 * Stale values when Redis fails.
	 */
	public static class StaleOnError {

		/**
		 * Whether every cache serves the last value seen when Redis fails (per cache:
		 * caches.<name>.stale-on-error).
		 */
		private boolean enabled;

		/** How many values are kept in memory for that, least recently used out. */
		private int maxEntries = 10_000;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getMaxEntries() {
			return this.maxEntries;
		}

		public void setMaxEntries(int maxEntries) {
			this.maxEntries = maxEntries;
		}

	}

	/**
	 * Settings of one cache; unset values fall back to the defaults above.
	 */
	public static class CacheSettings {

		/** Time to live of this cache's entries. */
		private @Nullable Duration ttl;

		/** Whether null results are cached. */
		private @Nullable Boolean cacheNulls;

		/** Whether hits are refreshed early. */
		private @Nullable Boolean earlyRefresh;

		/** Whether the last value seen is served when Redis fails. */
		private @Nullable Boolean staleOnError;

		/** Whether single flight applies to this cache. */
		private @Nullable Boolean singleFlight;

		public @Nullable Duration getTtl() {
			return this.ttl;
		}

		public void setTtl(@Nullable Duration ttl) {
			this.ttl = ttl;
		}

		public @Nullable Boolean getCacheNulls() {
			return this.cacheNulls;
		}

		public void setCacheNulls(@Nullable Boolean cacheNulls) {
			this.cacheNulls = cacheNulls;
		}

		public @Nullable Boolean getEarlyRefresh() {
			return this.earlyRefresh;
		}

		public void setEarlyRefresh(@Nullable Boolean earlyRefresh) {
			this.earlyRefresh = earlyRefresh;
		}

		public @Nullable Boolean getStaleOnError() {
			return this.staleOnError;
		}

		public void setStaleOnError(@Nullable Boolean staleOnError) {
			this.staleOnError = staleOnError;
		}

		public @Nullable Boolean getSingleFlight() {
			return this.singleFlight;
		}

		public void setSingleFlight(@Nullable Boolean singleFlight) {
			this.singleFlight = singleFlight;
		}

	}

}
