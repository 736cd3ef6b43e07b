package io.github.redkit.idempotency.internal;

import java.time.Duration;

/**
 * The defaults of {@link RedisIdempotentSteps}.
 *
 * @param ttl how long an operation's record is kept
 * @param lease how long a claim holds a step while it runs
 * @param timeout the longest wait for Redis; then the call fails (closed)
 */
public record IdempotencySettings(Duration ttl, Duration lease, Duration timeout) {

}
