package io.github.redkit.resilience4j.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Properties of the Resilience4j instances backed by Redkit's limits.
 */
@ConfigurationProperties("redkit.resilience4j")
public class Resilience4jProperties {

	/**
	 * Whether the Resilience4j instances named here take their permits from Redkit's
	 * limits.
	 */
	private boolean enabled = true;

	/**
	 * Resilience4j rate limiters (by instance name, as under
	 * resilience4j.ratelimiter.instances) whose permits are decisions of a Redkit rate
	 * limit.
	 */
	private Map<String, Instance> rateLimiters = new LinkedHashMap<>();

	/**
	 * Resilience4j semaphore bulkheads (by instance name, as under
	 * resilience4j.bulkhead.instances) whose places are permits of a Redkit concurrency
	 * limit.
	 */
	private Map<String, Instance> bulkheads = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Map<String, Instance> getRateLimiters() {
		return this.rateLimiters;
	}

	public void setRateLimiters(Map<String, Instance> rateLimiters) {
		this.rateLimiters = rateLimiters;
	}

	public Map<String, Instance> getBulkheads() {
		return this.bulkheads;
	}

	public void setBulkheads(Map<String, Instance> bulkheads) {
		this.bulkheads = bulkheads;
	}

	/**
	 * One Resilience4j instance and the Redkit limit behind it.
	 */
	public static class Instance {

		/**
		 * The Redkit limit (under redkit.rate-limit.limits for a rate limiter, under
		 * redkit.concurrency-limit.limits for a bulkhead); the instance's name when not
		 * set.
		 */
		private @Nullable String limit;

		/**
		 * The identifier the permits are counted for: instances (of this application or
		 * another) that name the same limit and key share one count; the instance's name
		 * when not set.
		 */
		private @Nullable String key;

		public @Nullable String getLimit() {
			return this.limit;
		}

		public void setLimit(@Nullable String limit) {
			this.limit = limit;
		}

		public @Nullable String getKey() {
			return this.key;
		}

		public void setKey(@Nullable String key) {
			this.key = key;
		}

	}

}
