package io.github.redkit.concurrency;

import java.time.Duration;

import io.github.redkit.ratelimit.RateLimitFailureMode;

/**
 * What every permit of a {@link RedisConcurrencyLimiter} shares, prepared once from the
 * {@code redkit.concurrency-limit} properties.
 *
 * @param failureMode what to do when Redis cannot be reached in time: run the call
 * without a permit ({@code ALLOW}) or refuse it ({@code DENY})
 * @param timeout how long taking, renewing or giving back a permit waits for Redis
 */
public record ConcurrencyLimitSettings(RateLimitFailureMode failureMode, Duration timeout) {

}
