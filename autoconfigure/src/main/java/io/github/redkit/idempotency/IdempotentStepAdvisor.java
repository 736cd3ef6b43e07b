package io.github.redkit.idempotency;

import io.github.redkit.core.RedkitAdvisor;

/**
 * Applies the {@link IdempotentStepInterceptor} to methods annotated with
 * {@link IdempotentStep}.
 */
public class IdempotentStepAdvisor extends RedkitAdvisor {

	/**
	 * Creates an advisor.
	 * @param interceptor the interceptor
	 * @param order the advisor's order (see {@code RedkitAdvisorOrder.IDEMPOTENCY})
	 */
	public IdempotentStepAdvisor(IdempotentStepInterceptor interceptor, int order) {
		super(IdempotentStep.class, interceptor, order);
	}

}
