package io.github.redkit.concurrency.internal;

import io.github.redkit.concurrency.ConcurrencyLimited;
import io.github.redkit.core.internal.RedkitAdvisor;
import io.github.redkit.core.internal.ValidatingPointcut;

import org.springframework.core.Ordered;

/**
 * Applies {@link ConcurrencyLimitedInterceptor} to methods annotated with
 * {@link ConcurrencyLimited} and to every method of annotated classes. An inconsistent
 * annotation fails when the bean is created, not on its first call.
 */
public class ConcurrencyLimitedAdvisor extends RedkitAdvisor {

	/**
	 * The default order: inside the rate limit (a call it refused takes no permit) and
	 * around idempotency, locks and the transaction, which the permit is held around.
	 */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 250;

	/**
	 * Creates an advisor.
	 * @param interceptor the interceptor
	 * @param order the advisor's order; {@link #DEFAULT_ORDER} runs it inside the rate
	 * limit and around idempotency, locks and transactions
	 */
	public ConcurrencyLimitedAdvisor(ConcurrencyLimitedInterceptor interceptor, int order) {
		super(ValidatingPointcut.methodsAndClasses(ConcurrencyLimited.class, interceptor), interceptor, order);
	}

}
