package io.github.redkit.autoconfigure.concurrency;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.redkit.concurrency.ConcurrencyPolicy;
import io.github.redkit.concurrency.internal.ConcurrencyLimitSettings;
import io.github.redkit.concurrency.internal.ConcurrencyLimitedAdvisor;
import io.github.redkit.core.LimitFailureMode;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Concurrency limits: named limits of calls in flight per key across instances, and what
 * to do when Redis cannot be reached.
 */
@ConfigurationProperties("redkit.concurrency-limit")
public class ConcurrencyLimitProperties {

	/**
	 * Whether concurrency limits (the ConcurrencyLimiter bean and @ConcurrencyLimited)
	 * are enabled.
	 */
	private boolean enabled = true;

	/**
	 * What to do when Redis cannot be reached in time: 'allow' runs calls without a
	 * permit (fail open), 'deny' refuses them (fail closed, 503 in Spring MVC).
	 */
	private LimitFailureMode failureMode = LimitFailureMode.ALLOW;

	/**
	 * How long taking, renewing or giving back a permit waits for Redis.
	 */
	private Duration timeout = Duration.ofMillis(500);

	/**
	 * How long the failure mode applies without asking Redis after Redis did not answer
	 * in time, so that an outage does not add the timeout to every call; 0 to ask Redis
	 * every time.
	 */
	private Duration failureCooldown = ConcurrencyLimitSettings.DEFAULT_FAILURE_COOLDOWN;

	/**
	 * Order of the @ConcurrencyLimited interceptor; the default runs it inside the rate
	 * limit and around idempotency, locks and transactions.
	 */
	private int order = ConcurrencyLimitedAdvisor.DEFAULT_ORDER;

	/**
	 * Named limits, used by @ConcurrencyLimited("name") and
	 * ConcurrencyLimiter.tryAcquire("name", key).
	 */
	private Map<String, Limit> limits = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public LimitFailureMode getFailureMode() {
		return this.failureMode;
	}

	public void setFailureMode(LimitFailureMode failureMode) {
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
		 * Calls in flight at most per key, across every instance.
		 */
		private int limit;

		/**
		 * Lease of a permit: renewed every third of it while its call runs; a crashed
		 * instance's permits come back when it ends.
		 */
		private Duration lease = ConcurrencyPolicy.DEFAULT_LEASE;

		public int getLimit() {
			return this.limit;
		}

		public void setLimit(int limit) {
			this.limit = limit;
		}

		public Duration getLease() {
			return this.lease;
		}

		public void setLease(Duration lease) {
			this.lease = lease;
		}

	}

}
