package io.github.redkit.autoconfigure;

import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMeter;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservation;
import io.github.redkit.core.RedkitObservationKind;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.KeyExpressionEvaluator;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.RedisServers;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.ResolvableType;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

class RedkitAutoConfigurationTests {

	private static final RedkitMeter TEST_COUNTER = RedkitMeter.counter("redkit.test.calls", "Calls of a test");

	private static final RedkitMeter TEST_TIMER = RedkitMeter.timer("redkit.test.time", "Time of a test");

	private static final RedkitObservationKind TEST_DECISION = new RedkitObservationKind("redkit.test.decision",
			"redkit.test");

	private final ApplicationContextRunner runner = withRedkit(new ApplicationContextRunner());

	private static ApplicationContextRunner withRedkit(ApplicationContextRunner runner) {
		return runner
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class))
			.withPropertyValues(RedisServers.standalone().springProperties());
	}

	@Test
	void backsOffWithoutARedisConnectionFactory() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedkitAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RedisKeyspace.class)
				.doesNotHaveBean(RedisScriptRunner.class));
	}

	@Test
	void providesTheCoreWithTheDefaultPrefix() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(RedisKeyspace.class)
				.hasSingleBean(RedisScriptRunner.class)
				.hasSingleBean(KeyExpressionEvaluator.class);
			assertThat(context.getBean(RedisKeyspace.class).prefix()).isEqualTo("redkit");
			StringRedisTemplate template = context.getBean(RedisScriptRunner.class).template();
			template.opsForValue().set("redkit-test:autoconfig", "ok");
			assertThat(template.opsForValue().get("redkit-test:autoconfig")).isEqualTo("ok");
		});
	}

	@Test
	void usesTheConfiguredPrefix() {
		this.runner.withPropertyValues("redkit.key-prefix=shop")
			.run((context) -> assertThat(context.getBean(RedisKeyspace.class).prefix()).isEqualTo("shop"));
	}

	@Test
	void aPrefixThatWouldBeAHashTagFailsNamingTheProperty() {
		this.runner.withPropertyValues("redkit.key-prefix=shop{1}")
			.run((context) -> assertThat(context).hasFailed().getFailure().rootCause().hasMessageContaining("shop{1}"))
			.run((context) -> assertThat(context.getStartupFailure()).hasStackTraceContaining("redkit.key-prefix"));
	}

	@Test
	void handsScriptsOffToAsManyThreadsAsThePoolHasConnections() {
		this.runner.run((context) -> assertThat(context.getBean(RedisScriptRunner.class).handOffThreads())
			.isEqualTo(RedisScriptRunner.DEFAULT_HAND_OFF_THREADS));
		this.runner
			.withPropertyValues("spring.data.redis.lettuce.pool.enabled=true",
					"spring.data.redis.lettuce.pool.max-active=3")
			.run((context) -> assertThat(context.getBean(RedisScriptRunner.class).handOffThreads()).isEqualTo(3));
		this.runner.withPropertyValues("redkit.hand-off-threads=5")
			.run((context) -> assertThat(context.getBean(RedisScriptRunner.class).handOffThreads()).isEqualTo(5));
	}

	@Test
	void noHandOffThreadFailsNamingTheProperty() {
		this.runner.withPropertyValues("redkit.hand-off-threads=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redkit.hand-off-threads"));
	}

	@Test
	void withoutRegistriesNoRecordingOrObservationLooksThemUpOnceTheContextHasStarted() {
		AtomicInteger lookups = new AtomicInteger();
		withRedkit(new ApplicationContextRunner(
				() -> new AnnotationConfigApplicationContext(new RegistryLookupCountingBeanFactory(lookups))))
			.run((context) -> {
				RedkitMetrics metrics = context.getBean(RedkitMetrics.class);
				RedkitObservations observations = context.getBean(RedkitObservations.class);
				int atStart = lookups.get();
				// a bean factory lookup per recording cost a decision more than its
				// interceptor did
				for (int i = 0; i < 3; i++) {
					metrics.increment(TEST_COUNTER, "name", "api");
					metrics.record(TEST_TIMER, 1_000, "name", "api");
					assertThat(observations.start(TEST_DECISION, "api")).isSameAs(RedkitObservation.NONE);
				}
				assertThat(lookups.get() - atStart).as("registry lookups after the start").isZero();
			});
	}

	@Test
	void everyBeanCanBeReplaced() {
		this.runner.withUserConfiguration(CustomKeyspace.class)
			.run((context) -> assertThat(context.getBean(RedisKeyspace.class).prefix()).isEqualTo("custom"));
	}

	@Configuration(proxyBeanMethods = false)
	static class CustomKeyspace {

		@Bean
		RedisKeyspace customKeyspace() {
			return new RedisKeyspace("custom");
		}

	}

	/** Counts the lookups of Micrometer's registries. */
	static final class RegistryLookupCountingBeanFactory extends DefaultListableBeanFactory {

		private final AtomicInteger lookups;

		RegistryLookupCountingBeanFactory(AtomicInteger lookups) {
			this.lookups = lookups;
		}

		@Override
		public String[] getBeanNamesForType(ResolvableType type, boolean includeNonSingletons, boolean allowEagerInit) {
			count(type.resolve());
			return super.getBeanNamesForType(type, includeNonSingletons, allowEagerInit);
		}

		@Override
		public String[] getBeanNamesForType(Class<?> type, boolean includeNonSingletons, boolean allowEagerInit) {
			count(type);
			return super.getBeanNamesForType(type, includeNonSingletons, allowEagerInit);
		}

		private void count(Class<?> type) {
			if (type == MeterRegistry.class || type == ObservationRegistry.class) {
				this.lookups.incrementAndGet();
			}
		}

	}

}
