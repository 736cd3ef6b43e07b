package io.github.redkit.idempotency;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;

import io.github.redkit.core.AnnotationDurations;
import io.github.redkit.core.ReactiveCall;
import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * An {@link IdempotentStep} annotation parsed once per method and target class.
 *
 * @param operation the operation expression
 * @param step the step name
 * @param after the steps it comes after
 * @param ttl the record's ttl, {@code null} for the default
 * @param lease the claim's lease, {@code null} for the default
 * @param fingerprint the fingerprint expression, {@code null} for none
 * @param resultType the method's generic return type
 */
record StepDefinition(String operation, String step, Set<String> after, @Nullable Duration ttl,
		@Nullable Duration lease, @Nullable String fingerprint, @Nullable Type resultType) {

	static @Nullable StepDefinition of(Method specific) {
		IdempotentStep annotation = AnnotatedElementUtils.findMergedAnnotation(specific, IdempotentStep.class);
		if (annotation == null) {
			return null;
		}
		String where = "@IdempotentStep on " + specific.getDeclaringClass().getSimpleName() + "." + specific.getName()
				+ "()";
		if (annotation.step().isBlank() || annotation.operation().isBlank()) {
			throw new IllegalStateException(where + " needs an operation and a step");
		}
		Set<String> after = new LinkedHashSet<>(Arrays.asList(annotation.after()));
		if (after.contains(annotation.step())) {
			throw new IllegalStateException(where + ": step '" + annotation.step() + "' cannot come after itself");
		}
		if (ReactiveCall.isDeferred(specific.getReturnType())) {
			throw new IllegalStateException(
					where + ": asynchronous and reactive results are not supported yet; return the value");
		}
		Duration ttl = AnnotationDurations.parse(annotation.ttl(), null, where.replace("@IdempotentStep", "ttl of"));
		Duration lease = AnnotationDurations.parse(annotation.lease(), null,
				where.replace("@IdempotentStep", "lease of"));
		String fingerprint = annotation.fingerprint().isBlank() ? null : annotation.fingerprint();
		return new StepDefinition(annotation.operation(), annotation.step(), Set.copyOf(after), ttl, lease, fingerprint,
				(specific.getReturnType() == void.class) ? null : specific.getGenericReturnType());
	}

}
