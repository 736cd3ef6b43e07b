package io.github.redkit.lock.internal;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Objects;

import io.github.redkit.core.internal.AnnotationDurations;
import io.github.redkit.core.internal.KeyExpressionEvaluator;
import io.github.redkit.core.internal.ReactiveCall;
import io.github.redkit.lock.DistributedLock;
import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * What a {@link DistributedLock} method asks for, read once per method and target class.
 *
 * @param keyExpression the key expression, also the lock's name
 * @param waitTime how long to wait
 * @param leaseTime the explicit lease, {@code null} for the default lease, renewed
 * @param reactive whether the method returns a publisher or a future, held until it
 * completes
 */
record LockOperation(String keyExpression, Duration waitTime, @Nullable Duration leaseTime, boolean reactive) {

	/**
	 * Reads the annotation of a method.
	 * @param specific the method as the target class declares it
	 * @param method the invoked method (an interface's, say)
	 * @param defaultWait the wait of an annotation that gives none
	 * @return the operation, or {@code null} when the method is not annotated
	 * @throws IllegalStateException when the annotation is inconsistent
	 */
	static @Nullable LockOperation of(Method specific, Method method, Duration defaultWait) {
		DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(specific, DistributedLock.class);
		if (annotation == null) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
		}
		if (annotation == null) {
			return null;
		}
		String where = " on " + specific.getDeclaringClass().getSimpleName() + "." + specific.getName() + "()";
		if (annotation.key().isBlank()) {
			throw new IllegalStateException("@DistributedLock.key must not be empty" + where);
		}
		KeyExpressionEvaluator.validate(annotation.key(), "@DistributedLock.key" + where);
		boolean reactive = ReactiveCall.isReactive(specific);
		if (!reactive && ReactiveCall.isDeferred(specific.getReturnType())) {
			// held around the call, the lock would be given back before the result
			// exists
			throw new IllegalStateException("@DistributedLock" + where + ": " + specific.getReturnType().getSimpleName()
					+ " results are not supported; return a value, a CompletableFuture, a Mono or a Flux");
		}
		Duration wait = AnnotationDurations.parse(annotation.waitTime(), defaultWait,
				"@DistributedLock.waitTime" + where);
		Duration lease = AnnotationDurations.parse(annotation.leaseTime(), null, "@DistributedLock.leaseTime" + where);
		if (lease != null && lease.toMillis() < 1) {
			throw new IllegalArgumentException("@DistributedLock.leaseTime" + where + " must be at least 1ms");
		}
		return new LockOperation(annotation.key(), Objects.requireNonNull(wait), lease, reactive);
	}

}
