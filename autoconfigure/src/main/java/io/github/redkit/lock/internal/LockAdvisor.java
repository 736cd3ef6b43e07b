package io.github.redkit.lock.internal;

import io.github.redkit.core.internal.RedkitAdvisor;
import io.github.redkit.core.internal.ValidatingPointcut;
import io.github.redkit.lock.DistributedLock;

import org.springframework.core.Ordered;

/**
 * Applies the {@link LockInterceptor} to methods annotated with {@link DistributedLock}
 * (on the method, or inherited from an interface or superclass method). An inconsistent
 * annotation fails when the bean is created, not on its first call.
 */
public class LockAdvisor extends RedkitAdvisor {

	/**
	 * The default order: innermost of Redkit's advisors, around the transaction (Spring's
	 * default order, {@link Ordered#LOWEST_PRECEDENCE}), so that a lock is released only
	 * after the transaction it protects has committed.
	 */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	/**
	 * Creates an advisor.
	 * @param interceptor the interceptor
	 * @param order the advisor's order; {@link #DEFAULT_ORDER} puts the lock around the
	 * transaction
	 */
	public LockAdvisor(LockInterceptor interceptor, int order) {
		super(ValidatingPointcut.methods(DistributedLock.class, interceptor), interceptor, order);
	}

}
