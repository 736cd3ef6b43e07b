package io.github.redkit.ratelimit;

import java.lang.reflect.Method;
import java.time.Duration;

import io.github.redkit.core.AnnotationDurations;

import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * What a {@link RateLimited} method asks for, resolved once per method: the limit name,
 * an inline policy if any, the key expressions and the cost.
 *
 * @param limitName the limit (for an inline limit: {@code Class.method}, or {@code Class}
 * when the annotation is on the class)
 * @param inlinePolicy the inline policy, or {@code null} for a named limit
 * @param keyExpressions the SpEL key expressions; empty for one shared key
 * @param cost permits per call
 */
record RateLimitedOperation(String limitName, RateLimitPolicy inlinePolicy, String[] keyExpressions, int cost) {

	/** The identifier of a method limited without key expressions. */
	static final String SHARED_KEY = "all";

	/**
	 * Reads the annotation of a method, or of its class.
	 * @param method the most specific method
	 * @param targetClass the target class
	 * @return the operation, or {@code null} when the method is not rate limited
	 * @throws IllegalStateException when the annotation is inconsistent
	 */
	static RateLimitedOperation of(Method method, Class<?> targetClass) {
		RateLimited annotation = AnnotatedElementUtils.findMergedAnnotation(method, RateLimited.class);
		boolean onClass = annotation == null;
		if (onClass) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(targetClass, RateLimited.class);
		}
		if (annotation == null) {
			return null;
		}
		String where = "@RateLimited on " + targetClass.getSimpleName() + "." + method.getName() + "()";
		if (annotation.cost() < 1) {
			throw new IllegalStateException(where + ": cost must be at least 1 (was " + annotation.cost() + ")");
		}
		boolean named = !annotation.value().isBlank();
		boolean inline = annotation.limit() != 0 || !annotation.period().isBlank();
		if (named == inline) {
			throw new IllegalStateException(
					where + ": give either the name of a configured limit (value) or an inline limit and period, not "
							+ (named ? "both" : "neither"));
		}
		if (named) {
			return new RateLimitedOperation(annotation.value(), null, annotation.key(), annotation.cost());
		}
		if (annotation.limit() <= 0) {
			throw new IllegalStateException(where + ": limit must be > 0 (was " + annotation.limit() + ")");
		}
		Duration period = AnnotationDurations.parse(annotation.period(), null, where + " period");
		if (period == null || period.toMillis() < 1) {
			throw new IllegalStateException(where + ": an inline limit needs a period of at least 1ms");
		}
		RateLimitPolicy policy = RateLimitPolicy.slidingWindow(RateLimitWindow.of(annotation.limit(), period));
		// an inline limit on a class is shared by all its methods
		String name = onClass ? targetClass.getSimpleName() : targetClass.getSimpleName() + "." + method.getName();
		return new RateLimitedOperation(name, policy, annotation.key(), annotation.cost());
	}

}
