package io.github.redkit.idempotency.internal;

import io.github.redkit.core.internal.RedkitAdvisor;
import io.github.redkit.core.internal.ValidatingPointcut;
import io.github.redkit.idempotency.IdempotentStep;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.Ordered;

/**
 * Applies the {@link IdempotentStepInterceptor} to methods annotated with
 * {@link IdempotentStep}, and ends its lease renewer when the context closes. An
 * inconsistent annotation fails when the bean is created, not on its first call.
 */
public class IdempotentStepAdvisor extends RedkitAdvisor implements DisposableBean {

	/**
	 * The default order: inside the rate and concurrency limits, around the lock, so that
	 * a duplicate returns the recorded result without locking.
	 */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 200;

	private final transient IdempotentStepInterceptor stepInterceptor;

	/**
	 * Creates an advisor.
	 * @param interceptor the interceptor
	 * @param order the advisor's order, {@link #DEFAULT_ORDER} by default
	 */
	public IdempotentStepAdvisor(IdempotentStepInterceptor interceptor, int order) {
		super(ValidatingPointcut.methods(IdempotentStep.class, interceptor), interceptor, order);
		this.stepInterceptor = interceptor;
	}

	/**
	 * Ends the interceptor's lease renewer.
	 */
	@Override
	public void destroy() {
		this.stepInterceptor.destroy();
	}

}
