package io.github.redkit.ratelimit.internal;

import java.time.Duration;
import java.util.Map;

import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.ratelimit.RateLimitFailureMode;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * What every decision of a {@link RedisRateLimiter} shares, prepared once from the
 * {@code redkit.rate-limit} properties.
 *
 * @param failureMode what to do when Redis cannot be reached in time: let the call
 * through ({@code ALLOW}), refuse it ({@code DENY}) or decide it on this instance
 * ({@code LOCAL})
 * @param timeout how long a decision waits for Redis
 * @param failureCooldown how long the failure mode applies without asking Redis after a
 * failure, zero for never
 * @param localLimiter what decides in the {@code LOCAL} failure mode; {@code null} in the
 * others
 * @param allowances the local allowances of the named limits that have one, by name
 */
public record RateLimitSettings(RateLimitFailureMode failureMode, Duration timeout, Duration failureCooldown,
		@Nullable LocalRateLimiter localLimiter, Map<String, LocalAllowance> allowances) {

	/**
	 * Checks that the local failure mode has its limiter.
	 * @param failureMode the failure mode
	 * @param timeout how long a decision waits for Redis
	 * @param failureCooldown how long the failure mode applies without asking Redis
	 * @param localLimiter what decides in the {@code LOCAL} failure mode
	 * @param allowances the local allowances of the named limits that have one
	 */
	public RateLimitSettings {
		Assert.isTrue(failureMode != RateLimitFailureMode.LOCAL || localLimiter != null,
				"The local failure mode needs a local limiter");
		allowances = Map.copyOf(allowances);
	}

	/**
	 * Settings without local allowances.
	 * @param failureMode the failure mode
	 * @param timeout how long a decision waits for Redis
	 * @param failureCooldown how long the failure mode applies without asking Redis
	 * @param localLimiter what decides in the {@code LOCAL} failure mode
	 */
	public RateLimitSettings(RateLimitFailureMode failureMode, Duration timeout, Duration failureCooldown,
			@Nullable LocalRateLimiter localLimiter) {
		this(failureMode, timeout, failureCooldown, localLimiter, Map.of());
	}

	/**
	 * Settings of the {@code ALLOW} or {@code DENY} failure mode.
	 * @param failureMode the failure mode
	 * @param timeout how long a decision waits for Redis
	 * @param failureCooldown how long the failure mode applies without asking Redis
	 */
	public RateLimitSettings(RateLimitFailureMode failureMode, Duration timeout, Duration failureCooldown) {
		this(failureMode, timeout, failureCooldown, null);
	}

	/**
	 * Settings of a failure mode every limit has.
	 * @param failureMode the failure mode
	 * @param timeout how long a decision waits for Redis
	 * @param failureCooldown how long the failure mode applies without asking Redis
	 */
	public RateLimitSettings(LimitFailureMode failureMode, Duration timeout, Duration failureCooldown) {
		this(RateLimitFailureMode.of(failureMode), timeout, failureCooldown, null);
	}

}
