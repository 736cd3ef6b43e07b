package io.github.redkit.concurrency.internal;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.StringJoiner;

import io.github.redkit.concurrency.ConcurrencyLimited;
import io.github.redkit.concurrency.ConcurrencyPolicy;
import io.github.redkit.core.internal.AnnotationDurations;
import io.github.redkit.core.internal.ReactiveCall;
import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

/**
 * What a {@link ConcurrencyLimited} method asks for, resolved once per method.
 *
 * @param limit the limit: named, or inline (its name {@code Class.method}, or
 * {@code Class} when the annotation is on the class; its id, what its permits are kept
 * under, the class's full name, then the method and its parameter types)
 * @param keyExpression the SpEL key expression, or {@code null} for one shared key
 * @param reactive whether the method's result arrives later ({@link ReactiveCall}): the
 * permit is then held until it does
 */
record ConcurrencyLimitedOperation(LimitReference limit, @Nullable String keyExpression, boolean reactive) {

	/** The key of a method limited without a key expression. */
	static final String SHARED_KEY = "all";

	/**
	 * Reads the annotation of a method, or of its class.
	 * @param method the most specific method
	 * @param targetClass the target class
	 * @return the operation, or {@code null} when the method is not limited
	 * @throws IllegalStateException when the annotation is inconsistent
	 */
	static @Nullable ConcurrencyLimitedOperation of(Method method, Class<?> targetClass) {
		ConcurrencyLimited annotation = AnnotatedElementUtils.findMergedAnnotation(method, ConcurrencyLimited.class);
		boolean onClass = annotation == null;
		if (onClass) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(targetClass, ConcurrencyLimited.class);
		}
		if (annotation == null) {
			return null;
		}
		String where = "@ConcurrencyLimited on " + targetClass.getSimpleName() + "." + method.getName() + "()";
		if (annotation.key().length > 1) {
			throw new IllegalStateException(where + ": give at most one key expression (was " + annotation.key().length
					+ "); build a compound key in SpEL, e.g. \"#tenant + ':' + #user\"");
		}
		String key = (annotation.key().length == 1) ? annotation.key()[0] : null;
		if (key != null && key.isBlank()) {
			throw new IllegalStateException(where + ": the key expression must not be empty");
		}
		boolean named = !annotation.name().isBlank();
		boolean inline = annotation.limit() != 0;
		if (named == inline) {
			throw new IllegalStateException(
					where + ": give either the name of a configured limit or an inline limit, not "
							+ (named ? "both" : "neither"));
		}
		if (named) {
			if (!annotation.lease().isBlank()) {
				throw new IllegalStateException(
						where + ": a named limit takes its lease from redkit.concurrency-limit.limits."
								+ annotation.name() + ".lease, not from the annotation");
			}
			return new ConcurrencyLimitedOperation(LimitReference.named(annotation.name()), key,
					ReactiveCall.isReactive(method));
		}
		if (annotation.limit() < 0) {
			throw new IllegalStateException(where + ": limit must be > 0 (was " + annotation.limit() + ")");
		}
		Duration lease = AnnotationDurations.parse(annotation.lease(), ConcurrencyPolicy.DEFAULT_LEASE,
				where + " lease");
		if (lease == null || lease.toMillis() < 1) {
			throw new IllegalStateException(where + ": the lease must be at least 1ms");
		}
		// an inline limit on a class is shared by all its methods; the short name can be
		// shared by same-named classes and by overloads, the id cannot
		Class<?> userClass = ClassUtils.getUserClass(targetClass);
		String name = onClass ? userClass.getSimpleName() : userClass.getSimpleName() + "." + method.getName();
		String id = onClass ? userClass.getName() : userClass.getName() + "." + signature(method);
		return new ConcurrencyLimitedOperation(
				new LimitReference(name, id, new ConcurrencyPolicy(annotation.limit(), lease)), key,
				ReactiveCall.isReactive(method));
	}

	private static String signature(Method method) {
		StringJoiner parameters = new StringJoiner(",", method.getName() + "(", ")");
		for (Class<?> type : method.getParameterTypes()) {
			parameters.add(type.getTypeName());
		}
		return parameters.toString();
	}

}
