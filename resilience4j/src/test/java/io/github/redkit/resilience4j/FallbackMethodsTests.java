package io.github.redkit.resilience4j;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.github.resilience4j.bulkhead.annotation.Bulkhead;
import io.github.resilience4j.ratelimiter.annotation.RateLimiter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fallbacks of the tests' annotated beans (one is the docs' snippet) are public.
 * Resilience4j's aspects (2.4) make a fallback that is not public accessible around each
 * call and inaccessible again after it, on one {@link Method} every call shares: of two
 * refusals at once, one can find it made inaccessible again between its check and its
 * call, and fail with an {@link IllegalAccessException} instead of reaching its fallback
 * (Resilience4j issue 878). {@link SeveralInstancesTests}' four refusals at once met it
 * in CI: a call neither inside nor refused.
 */
class FallbackMethodsTests {

	@ParameterizedTest
	@ValueSource(classes = { ReportService.class, PartnerClient.class })
	void everyFallbackIsPublic(Class<?> bean) {
		List<String> fallbacks = new ArrayList<>();
		for (Method method : bean.getDeclaredMethods()) {
			Stream
				.of(method.getAnnotation(Bulkhead.class), method.getAnnotation(RateLimiter.class),
						bean.getAnnotation(Bulkhead.class), bean.getAnnotation(RateLimiter.class))
				.map(FallbackMethodsTests::fallbackMethod)
				.filter((name) -> !name.isEmpty())
				.forEach(fallbacks::add);
		}
		assertThat(fallbacks).as("the fallbacks %s names", bean.getSimpleName()).isNotEmpty();
		for (String name : fallbacks) {
			assertThat(Stream.of(bean.getDeclaredMethods()).filter((method) -> method.getName().equals(name)))
				.as("%s.%s", bean.getSimpleName(), name)
				.isNotEmpty()
				.allMatch((method) -> Modifier.isPublic(method.getModifiers()));
		}
	}

	private static String fallbackMethod(Object annotation) {
		if (annotation instanceof Bulkhead bulkhead) {
			return bulkhead.fallbackMethod();
		}
		if (annotation instanceof RateLimiter rateLimiter) {
			return rateLimiter.fallbackMethod();
		}
		return "";
	}

}
