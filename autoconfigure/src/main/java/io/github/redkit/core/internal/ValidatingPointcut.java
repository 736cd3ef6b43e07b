package io.github.redkit.core.internal;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Matches the methods carrying an annotation (on the method, inherited from an interface
 * or superclass method, or, when asked, on the target class) and reads each one's
 * operation as it matches: a bad annotation fails the application's start, when the
 * bean's proxy is made, with a message naming the method, not its first call. The
 * pointcut of every Redkit advisor whose annotation has something to check.
 */
public final class ValidatingPointcut extends StaticMethodMatcherPointcut {

	private final Class<? extends Annotation> annotation;

	private final boolean onClasses;

	private final RedkitInterceptor<?> interceptor;

	private ValidatingPointcut(Class<? extends Annotation> annotation, boolean onClasses,
			RedkitInterceptor<?> interceptor) {
		this.annotation = annotation;
		this.onClasses = onClasses;
		this.interceptor = interceptor;
	}

	/**
	 * A pointcut for an annotation of methods.
	 * @param annotation the annotation
	 * @param interceptor reads (and so validates) a method's operation
	 * @return the pointcut
	 */
	public static ValidatingPointcut methods(Class<? extends Annotation> annotation, RedkitInterceptor<?> interceptor) {
		return new ValidatingPointcut(annotation, false, interceptor);
	}

	/**
	 * A pointcut for an annotation of methods or classes (every method of an annotated
	 * class).
	 * @param annotation the annotation
	 * @param interceptor reads (and so validates) a method's operation
	 * @return the pointcut
	 */
	public static ValidatingPointcut methodsAndClasses(Class<? extends Annotation> annotation,
			RedkitInterceptor<?> interceptor) {
		return new ValidatingPointcut(annotation, true, interceptor);
	}

	@Override
	public boolean matches(Method method, Class<?> targetClass) {
		if (!annotated(method, targetClass)) {
			return false;
		}
		// reading the operation validates the annotation
		return this.interceptor.operation(method, targetClass) != null;
	}

	private boolean annotated(Method method, Class<?> targetClass) {
		if (AnnotatedElementUtils.hasAnnotation(method, this.annotation)
				|| (this.onClasses && AnnotatedElementUtils.hasAnnotation(targetClass, this.annotation))) {
			return true;
		}
		// proxy classes never have annotations on their redeclared methods
		if (Proxy.isProxyClass(targetClass)) {
			return false;
		}
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		return specific != method && AnnotatedElementUtils.hasAnnotation(specific, this.annotation);
	}

}
