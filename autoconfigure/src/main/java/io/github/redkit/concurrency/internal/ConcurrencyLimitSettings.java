package io.github.redkit.concurrency.internal;

import java.time.Duration;

import io.github.redkit.core.LimitFailureMode;

/**
 * What every permit of a {@link RedisConcurrencyLimiter} shares, prepared once from the
 * {@code redkit.concurrency-limit} properties.
 *
 * @param failureMode what to do when Redis cannot be reached in time: run the call
 * without a permit ({@code ALLOW}) or refuse it ({@code DENY})
 * @param timeout how long taking, renewing or giving back a permit waits for Redis
 * @param failureCooldown how long the failure mode applies without asking Redis after
 * Redis did not answer a permit's acquisition, zero for never
 */
public record ConcurrencyLimitSettings(LimitFailureMode failureMode, Duration timeout, Duration failureCooldown) {

	/** The failure cooldown when none is given, as for rate limits. */
	public static final Duration DEFAULT_FAILURE_COOLDOWN = Duration.ofSeconds(1);

	/**
	 * Settings with the {@linkplain #DEFAULT_FAILURE_COOLDOWN default failure cooldown}.
	 * @param failureMode what to do when Redis cannot be reached in time
	 * @param timeout how long taking, renewing or giving back a permit waits for Redis
	 */
	public ConcurrencyLimitSettings(LimitFailureMode failureMode, Duration timeout) {
		this(failureMode, timeout, DEFAULT_FAILURE_COOLDOWN);
	}

}
