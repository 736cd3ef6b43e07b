package io.github.redkit.lock;

import io.github.redkit.core.RedkitAdvisor;

/**
 * Applies the {@link LockInterceptor} to methods annotated with {@link DistributedLock}
 * (on the method, or inherited from an interface or superclass method).
 */
public class LockAdvisor extends RedkitAdvisor {

	/**
	 * Creates an advisor.
	 * @param interceptor the interceptor
	 * @param order the advisor's order; {@code RedkitAdvisorOrder.LOCK} puts the lock
	 * around the transaction
	 */
	public LockAdvisor(LockInterceptor interceptor, int order) {
		super(DistributedLock.class, interceptor, order);
	}

}
