package io.github.redkit.idempotency.internal;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;

import io.github.redkit.core.internal.AnnotationDurations;
import io.github.redkit.core.internal.KeyExpressionEvaluator;
import io.github.redkit.core.internal.ReactiveCall;
import io.github.redkit.idempotency.IdempotentStep;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;

import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ResolvableType;
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
 * @param resultType the type of the recorded result: the method's generic return type, or
 * for a reactive method the emitted value's type ({@code List} of it for a {@code Flux})
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
		KeyExpressionEvaluator.validate(annotation.operation(), where + " operation");
		if (!annotation.fingerprint().isBlank()) {
			KeyExpressionEvaluator.validate(annotation.fingerprint(), where + " fingerprint");
		}
		Set<String> after = new LinkedHashSet<>(Arrays.asList(annotation.after()));
		if (after.contains(annotation.step())) {
			throw new IllegalStateException(where + ": step '" + annotation.step() + "' cannot come after itself");
		}
		boolean reactive = ReactiveCall.isReactive(specific);
		if (!reactive && ReactiveCall.isDeferred(specific.getReturnType())) {
			throw new IllegalStateException(where + ": this asynchronous result is not supported; return the value, "
					+ "a Mono, a Flux or a CompletableFuture");
		}
		Duration ttl = AnnotationDurations.parse(annotation.ttl(), null, where.replace("@IdempotentStep", "ttl of"));
		Duration lease = AnnotationDurations.parse(annotation.lease(), null,
				where.replace("@IdempotentStep", "lease of"));
		String fingerprint = annotation.fingerprint().isBlank() ? null : annotation.fingerprint();
		Type resultType = (specific.getReturnType() == void.class) ? null
				: (reactive ? recordedType(specific) : specific.getGenericReturnType());
		return new StepDefinition(annotation.operation(), annotation.step(), Set.copyOf(after), ttl, lease, fingerprint,
				resultType);
	}

	/**
	 * What a reactive method's step records: the emitted value (its type argument), or
	 * the list of a multi-value publisher's elements.
	 */
	private static Type recordedType(Method specific) {
		ResolvableType returnType = ResolvableType.forMethodReturnType(specific);
		ResolvableType element = returnType.as(Publisher.class).getGeneric(0);
		if (element == ResolvableType.NONE) {
			element = returnType.as(CompletionStage.class).getGeneric(0);
		}
		if (element == ResolvableType.NONE) {
			element = returnType.getGeneric(0);
		}
		Type value = concrete(element);
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(specific.getReturnType());
		boolean many = adapter != null && adapter.isMultiValue();
		return many ? ResolvableType.forClassWithGenerics(List.class, ResolvableType.forType(value)).getType() : value;
	}

	/**
	 * A type argument as a type JSON can read: resolved through the type it was found on
	 * (a {@code Publisher<T>}'s {@code T} is the method's {@code Receipt}), recursively.
	 */
	private static Type concrete(ResolvableType type) {
		Class<?> raw = type.resolve(Object.class);
		if (!type.hasGenerics() || raw.isArray()) {
			return raw;
		}
		ResolvableType[] generics = Arrays.stream(type.getGenerics())
			.map((generic) -> ResolvableType.forType(concrete(generic)))
			.toArray(ResolvableType[]::new);
		return ResolvableType.forClassWithGenerics(raw, generics).getType();
	}

}
