package io.github.redkit.core;

import org.springframework.core.Ordered;

/**
 * The default order of Redkit's method interceptors: rate limit outermost, then the
 * concurrency limit, then idempotency, then the lock, and the transaction (Spring's
 * default, {@link Ordered#LOWEST_PRECEDENCE}) innermost, so that a lock is released only
 * after the transaction it protects has committed. Each capability's {@code order}
 * property changes its own.
 */
public final class RedkitAdvisorOrder {

	/** {@code @RateLimited}: refuses before any other work is done. */
	public static final int RATE_LIMIT = Ordered.LOWEST_PRECEDENCE - 300;

	/**
	 * {@code @ConcurrencyLimited}: a call the rate limit refused takes no permit, and the
	 * permit is held around idempotency, the lock and the transaction.
	 */
	public static final int CONCURRENCY_LIMIT = Ordered.LOWEST_PRECEDENCE - 250;

	/**
	 * {@code @IdempotentStep}: a duplicate returns the recorded result without locking.
	 */
	public static final int IDEMPOTENCY = Ordered.LOWEST_PRECEDENCE - 200;

	/** {@code @DistributedLock}: held around the transaction. */
	public static final int LOCK = Ordered.LOWEST_PRECEDENCE - 100;

	private RedkitAdvisorOrder() {
	}

}
