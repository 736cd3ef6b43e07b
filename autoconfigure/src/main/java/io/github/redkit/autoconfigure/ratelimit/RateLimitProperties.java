package io.github.redkit.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redkit.core.RedkitAdvisorOrder;
import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitFailureMode;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Rate limiting: named limits and what to do when Redis cannot be reached.
 */
@ConfigurationProperties("redkit.rate-limit")
public class RateLimitProperties {

	/**
	 * Whether rate limiting (the RateLimiter bean and @RateLimited) is enabled.
	 */
	private boolean enabled = true;

	/**
	 * What to do when Redis cannot be reached in time: 'allow' lets calls through (fail
	 * open), 'deny' refuses them (fail closed, 503 in Spring MVC).
	 */
	private RateLimitFailureMode failureMode = RateLimitFailureMode.ALLOW;

	/**
	 * How long a decision waits for Redis before the failure mode applies.
	 */
	private Duration timeout = Duration.ofMillis(500);

	/**
	 * How long after a Redis failure the failure mode applies without asking Redis, so
	 * that an outage does not add the timeout to every call. 0 asks Redis every time.
	 */
	private Duration failureCooldown = Duration.ofSeconds(1);

	/**
	 * Whether allowed HTTP responses carry the RateLimit and RateLimit-Policy headers
	 * (refused ones always do).
	 */
	private boolean responseHeaders = true;

	/**
	 * Order of the @RateLimited interceptor; the default runs it before idempotency,
	 * locks and transactions.
	 */
	private int order = RedkitAdvisorOrder.RATE_LIMIT;

	/**
	 * Named limits, used by @RateLimited("name") and RateLimiter.tryAcquire("name", ...).
	 */
	private Map<String, Limit> limits = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public RateLimitFailureMode getFailureMode() {
		return this.failureMode;
	}

	public void setFailureMode(RateLimitFailureMode failureMode) {
		this.failureMode = failureMode;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public Duration getFailureCooldown() {
		return this.failureCooldown;
	}

	public void setFailureCooldown(Duration failureCooldown) {
		this.failureCooldown = failureCooldown;
	}

	public boolean isResponseHeaders() {
		return this.responseHeaders;
	}

	public void setResponseHeaders(boolean responseHeaders) {
		this.responseHeaders = responseHeaders;
	}

	public int getOrder() {
		return this.order;
	}

	public void setOrder(int order) {
		this.order = order;
	}

	public Map<String, Limit> getLimits() {
		return this.limits;
	}

	public void setLimits(Map<String, Limit> limits) {
		this.limits = limits;
	}

	/**
	 * One named limit.
	 */
	public static class Limit {

		/**
		 * Counting algorithm: sliding-window, sliding-log, fixed-window or token-bucket.
		 */
		private RateLimitAlgorithm algorithm = RateLimitAlgorithm.SLIDING_WINDOW;

		/**
		 * Sub-windows each sliding-window period is split into (1 to 100): a permit comes
		 * back at most one sub-window later than an exact log would give it back.
		 */
		private int subWindows = RateLimitPolicy.DEFAULT_SUB_WINDOWS;

		/**
		 * Windows, each a limit per period; a call must be under every one.
		 */
		private List<Window> windows = new ArrayList<>();

		public RateLimitAlgorithm getAlgorithm() {
			return this.algorithm;
		}

		public void setAlgorithm(RateLimitAlgorithm algorithm) {
			this.algorithm = algorithm;
		}

		public int getSubWindows() {
			return this.subWindows;
		}

		public void setSubWindows(int subWindows) {
			this.subWindows = subWindows;
		}

		public List<Window> getWindows() {
			return this.windows;
		}

		public void setWindows(List<Window> windows) {
			this.windows = windows;
		}

	}

	/**
	 * A limit per period.
	 */
	public static class Window {

		/**
		 * Calls allowed per period (for token-bucket: the bucket size).
		 */
		private long limit;

		/**
		 * The period, e.g. 1s, 1m, 1h.
		 */
		private @Nullable Duration period;

		public long getLimit() {
			return this.limit;
		}

		public void setLimit(long limit) {
			this.limit = limit;
		}

		public @Nullable Duration getPeriod() {
			return this.period;
		}

		public void setPeriod(@Nullable Duration period) {
			this.period = period;
		}

	}

}
