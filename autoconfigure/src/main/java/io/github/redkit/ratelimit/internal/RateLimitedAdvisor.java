package io.github.redkit.ratelimit.internal;

import io.github.redkit.core.internal.RedkitAdvisor;
import io.github.redkit.core.internal.ValidatingPointcut;
import io.github.redkit.ratelimit.RateLimited;

import org.springframework.core.Ordered;

/**
 * Applies {@link RateLimitedInterceptor} to methods annotated with {@link RateLimited}
 * and to every method of annotated classes. An inconsistent annotation fails when the
 * bean is created, not on its first call.
 */
public class RateLimitedAdvisor extends RedkitAdvisor {

	/**
	 * The default order: outermost of Redkit's advisors, so that a refused call does no
	 * other work (no permit, no claim, no lock).
	 */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 300;

	/**
	 * Creates an advisor.
	 * @param interceptor the interceptor
	 * @param order the advisor's order, {@link #DEFAULT_ORDER} by default
	 */
	public RateLimitedAdvisor(RateLimitedInterceptor interceptor, int order) {
		super(ValidatingPointcut.methodsAndClasses(RateLimited.class, interceptor), interceptor, order);
	}

}
