package io.github.redkit.concurrency.internal;

import java.lang.reflect.Method;

import io.github.redkit.concurrency.ConcurrencyLimited;
import io.github.redkit.core.internal.RedkitAdvisor;

import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;

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
		super(new ValidatingPointcut(interceptor), interceptor, order);
	}

	private static final class ValidatingPointcut extends StaticMethodMatcherPointcut {

		private final ConcurrencyLimitedInterceptor interceptor;

		ValidatingPointcut(ConcurrencyLimitedInterceptor interceptor) {
			this.interceptor = interceptor;
		}

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			if (!AnnotatedElementUtils.hasAnnotation(method, ConcurrencyLimited.class)
					&& !AnnotatedElementUtils.hasAnnotation(targetClass, ConcurrencyLimited.class)) {
				return false;
			}
			// resolving the operation validates the annotation
			return this.interceptor.operation(method, targetClass) != null;
		}

	}

}
