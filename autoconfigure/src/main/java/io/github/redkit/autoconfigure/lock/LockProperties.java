package io.github.redkit.autoconfigure.lock;

import java.time.Duration;

import io.github.redkit.lock.internal.LockAdvisor;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Properties of Redkit's distributed locks.
 */
@ConfigurationProperties("redkit.lock")
public class LockProperties {

	/**
	 * Whether distributed locks (the DistributedLocks bean and @DistributedLock) are
	 * enabled.
	 */
	private boolean enabled = true;

	/**
	 * How long @DistributedLock waits for a lock when the annotation gives no waitTime;
	 * 0s tries once.
	 */
	private Duration waitTime = Duration.ZERO;

	/**
	 * Lease of locks taken without an explicit lease; renewed (every third of it) while
	 * the method runs.
	 */
	private Duration leaseTime = Duration.ofSeconds(30);

	/**
	 * How long to wait for Redis to answer a lock command before failing closed.
	 */
	private Duration redisTimeout = Duration.ofSeconds(2);

	/**
	 * Longest sleep of a waiter between two attempts when no release notification
	 * arrives; each sleep is jittered between half of it and all of it.
	 */
	private Duration retryInterval = Duration.ofSeconds(1);

	/**
	 * Order of the @DistributedLock advisor; the default runs it around @Transactional,
	 * so the lock is released after the transaction completed.
	 */
	private int order = LockAdvisor.DEFAULT_ORDER;

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

	public Duration getLeaseTime() {
		return this.leaseTime;
	}

	public void setLeaseTime(Duration leaseTime) {
		this.leaseTime = leaseTime;
	}

	public Duration getRedisTimeout() {
		return this.redisTimeout;
	}

	public void setRedisTimeout(Duration redisTimeout) {
		this.redisTimeout = redisTimeout;
	}

	public Duration getRetryInterval() {
		return this.retryInterval;
	}

	public void setRetryInterval(Duration retryInterval) {
		this.retryInterval = retryInterval;
	}

	public int getOrder() {
		return this.order;
	}

	public void setOrder(int order) {
		this.order = order;
	}

}
