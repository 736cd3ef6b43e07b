package io.github.redkit.ratelimit;

import java.lang.reflect.Method;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Applies {@link RateLimitedInterceptor} to methods annotated with {@link RateLimited}
 * and to every method of annotated classes. An inconsistent annotation fails when the
 * bean is created, not on its first call.
 */
public class RateLimitedAdvisor extends AbstractPointcutAdvisor {

	private final RateLimitedInterceptor interceptor;

	private final Pointcut pointcut;

	/**
	 * Creates an advisor.
	 * @param interceptor the interceptor
	 * @param order the advisor's order
	 */
	public RateLimitedAdvisor(RateLimitedInterceptor interceptor, int order) {
		this.interceptor = interceptor;
		setOrder(order);
		this.pointcut = new ValidatingMethodPointcut();
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

	private final class ValidatingMethodPointcut extends StaticMethodMatcherPointcut {

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			if (!AnnotatedElementUtils.hasAnnotation(method, RateLimited.class)
					&& !AnnotatedElementUtils.hasAnnotation(targetClass, RateLimited.class)) {
				return false;
			}
			return RateLimitedAdvisor.this.interceptor.operation(method, targetClass) != null;
		}

	}

}
