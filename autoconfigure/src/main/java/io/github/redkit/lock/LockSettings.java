package io.github.redkit.lock;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * How {@code RedisDistributedLocks} behaves.
 *
 * @param leaseTime the lease of locks taken without one, renewed while held
 * @param redisTimeout how long to wait for Redis before failing closed
 * @param retryInterval the longest a waiter sleeps between two attempts when no release
 * notification arrives (each sleep is jittered between half of it and all of it)
 */
public record LockSettings(Duration leaseTime, Duration redisTimeout, Duration retryInterval) {

	/**
	 * Checks the settings.
	 * @param leaseTime the default lease
	 * @param redisTimeout the Redis timeout
	 * @param retryInterval the fallback retry interval
	 */
	public LockSettings {
		Assert.isTrue(leaseTime != null && leaseTime.toMillis() > 0, "leaseTime must be at least 1 ms");
		Assert.isTrue(redisTimeout != null && redisTimeout.toMillis() > 0, "redisTimeout must be at least 1 ms");
		Assert.isTrue(retryInterval != null && retryInterval.toMillis() > 0, "retryInterval must be at least 1 ms");
	}

}
