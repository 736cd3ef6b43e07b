package io.github.redkit.ratelimit.internal;

import java.time.Duration;

import io.github.redkit.core.LimitFailureMode;

/**
 * What every decision of a {@link RedisRateLimiter} shares, prepared once from the
 * {@code redkit.rate-limit} properties.
 *
 * @param failureMode what to do when Redis cannot be reached in time: let the call
 * through ({@code ALLOW}) or refuse it ({@code DENY})
 * @param timeout how long a decision waits for Redis
 * @param failureCooldown how long the failure mode applies without asking Redis after a
 * failure, zero for never
 */
public record RateLimitSettings(LimitFailureMode failureMode, Duration timeout, Duration failureCooldown) {

}
