package io.github.redkit.ratelimit.internal;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitWindow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Adding an algorithm is one descriptor and its scripts: each constant's descriptor
 * answers every capability itself (a capability with a default would let a new algorithm
 * inherit an answer it never gave) and every script it names is there.
 */
class AlgorithmDescriptorTests {

	/** What an algorithm can do, besides deciding: each descriptor must say. */
	private static final Set<String> CAPABILITIES = Set.of("scriptName", "refundScriptName", "servesLocalAllowances",
			"countingSpanMillis", "countsAcrossRegions", "chargeable");

	private static final RateLimitPolicy POLICY = new RateLimitPolicy(RateLimitAlgorithm.SLIDING_WINDOW,
			List.of(new RateLimitWindow(10, Duration.ofSeconds(1)), new RateLimitWindow(100, Duration.ofMinutes(1))),
			4);

	@Test
	void theCapabilitiesAreAbstractSoTheCompilerAsksEveryDescriptor() {
		List<String> abstractMethods = Arrays.stream(AlgorithmDescriptor.class.getDeclaredMethods())
			.filter((method) -> Modifier.isAbstract(method.getModifiers()))
			.map(Method::getName)
			.toList();
		assertThat(abstractMethods).containsAll(CAPABILITIES);
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void everyDescriptorAnswersEveryCapabilityItself(RateLimitAlgorithm algorithm) throws Exception {
		AlgorithmDescriptor descriptor = AlgorithmDescriptor.of(algorithm);
		for (Method capability : AlgorithmDescriptor.class.getDeclaredMethods()) {
			if (CAPABILITIES.contains(capability.getName())) {
				Method answer = descriptor.getClass().getMethod(capability.getName(), capability.getParameterTypes());
				assertThat(answer.getDeclaringClass()).as("%s of %s", capability.getName(), algorithm)
					.isEqualTo(descriptor.getClass());
			}
		}
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void everyScriptADescriptorNamesExists(RateLimitAlgorithm algorithm) {
		AlgorithmDescriptor descriptor = AlgorithmDescriptor.of(algorithm);
		for (String script : List.of(descriptor.scriptName(), descriptor.refundScriptName())) {
			assertThat(new ClassPathResource(LuaScript.LOCATION + script + ".lua").exists())
				.as("%s of %s", script, algorithm)
				.isTrue();
		}
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void everyDescriptorAnswersWithinItsBounds(RateLimitAlgorithm algorithm) {
		AlgorithmDescriptor descriptor = AlgorithmDescriptor.of(algorithm);
		RateLimitPolicy policy = new RateLimitPolicy(algorithm, POLICY.windows(), POLICY.subWindows());
		for (RateLimitWindow window : policy.windows()) {
			double span = descriptor.countingSpanMillis(policy, window);
			// a (sub-)window no longer than the window itself
			assertThat(span).as("%s of %s", window, algorithm)
				.isPositive()
				.isLessThanOrEqualTo(window.period().toMillis());
		}
		assertThat(descriptor.chargeable(policy, 1)).isEqualTo(1);
		assertThat(descriptor.chargeable(policy, 1_000_000)).isBetween(100L, 1_000_000L);
	}

	@Test
	void thePreparedLimitCarriesItsAlgorithmsScripts() {
		PreparedLimit limit = PreparedLimit.of("api", POLICY, new io.github.redkit.core.RedisKeyspace("redkit"));
		assertThat(limit.script().name()).isEqualTo("ratelimit_sliding_window");
		assertThat(limit.refundScript().name()).isEqualTo("ratelimit_refund_sliding_window");
	}

}
