package io.github.redkit.core.internal;

import java.lang.annotation.Annotation;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

/**
 * The advisor behind each of Redkit's annotations: a pointcut, the capability's
 * interceptor (a {@link RedkitInterceptor}, so that every annotation is read once the
 * same way) and an order. Each capability subclasses it so that its advisor has a type of
 * its own, which an application can replace, and declares its default order there
 * ({@code DEFAULT_ORDER}, a property changes it): every default lies below
 * {@link org.springframework.core.Ordered#LOWEST_PRECEDENCE}, so that Spring's
 * transaction (which has that order) runs inside all of them.
 */
public abstract class RedkitAdvisor extends AbstractPointcutAdvisor {

	private final transient Pointcut pointcut;

	private final transient RedkitInterceptor<?> interceptor;

	/**
	 * Creates an advisor for methods carrying an annotation (on the method, or inherited
	 * from an interface or superclass method).
	 * @param annotation the method annotation
	 * @param interceptor the interceptor
	 * @param order the advisor's order
	 */
	protected RedkitAdvisor(Class<? extends Annotation> annotation, RedkitInterceptor<?> interceptor, int order) {
		this(new AnnotationMatchingPointcut(null, annotation, true), interceptor, order);
	}

	/**
	 * Creates an advisor with a pointcut of its own.
	 * @param pointcut the pointcut
	 * @param interceptor the interceptor
	 * @param order the advisor's order
	 */
	protected RedkitAdvisor(Pointcut pointcut, RedkitInterceptor<?> interceptor, int order) {
		this.pointcut = pointcut;
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
