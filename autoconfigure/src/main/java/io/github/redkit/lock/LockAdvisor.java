package io.github.redkit.lock;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

/**
 * Applies the {@link LockInterceptor} to methods annotated with {@link DistributedLock}
 * (on the method, or inherited from an interface or superclass method).
 */
public class LockAdvisor extends AbstractPointcutAdvisor {

	private final transient LockInterceptor interceptor;

	private final transient Pointcut pointcut = new AnnotationMatchingPointcut(null, DistributedLock.class, true);

	/**
	 * Creates an advisor.
	 * @param interceptor the interceptor
	 * @param order the advisor's order; {@code RedkitAdvisorOrder.LOCK} puts the lock
	 * around the transaction
	 */
	public LockAdvisor(LockInterceptor interceptor, int order) {
		this.interceptor = interceptor;
		setOrder(order);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

}
