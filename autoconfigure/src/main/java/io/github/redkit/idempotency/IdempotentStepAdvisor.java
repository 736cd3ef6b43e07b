package io.github.redkit.idempotency;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

/**
 * Applies the {@link IdempotentStepInterceptor} to methods annotated with
 * {@link IdempotentStep}.
 */
public class IdempotentStepAdvisor extends AbstractPointcutAdvisor {

	private final transient IdempotentStepInterceptor interceptor;

	private final transient Pointcut pointcut = new AnnotationMatchingPointcut(null, IdempotentStep.class, true);

	/**
	 * Creates an advisor.
	 * @param interceptor the interceptor
	 * @param order the advisor's order (see {@code RedkitAdvisorOrder.IDEMPOTENCY})
	 */
	public IdempotentStepAdvisor(IdempotentStepInterceptor interceptor, int order) {
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
