package io.github.redkit.autoconfigure.ratelimit;

import java.util.UUID;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitObservations;
import io.github.redkit.ratelimit.DefaultRedkitRateLimitObservationConvention;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.ratelimit.RedkitRateLimitObservationConvention;
import io.github.redkit.testsupport.RedisServers;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The observations seam is wired to the application's registry and conventions.
 */
class RateLimitObservationAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				RateLimitAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withPropertyValues("redkit.rate-limit.limits.api.windows[0].limit=10",
				"redkit.rate-limit.limits.api.windows[0].period=1m");

	@Test
	void decisionsAreObservedOnTheApplicationsRegistryWithItsConvention() {
		this.runner.withUserConfiguration(Observed.class).run((context) -> {
			assertThat(context).hasSingleBean(RedkitObservations.class);
			assertThat(context.getBean(RedkitObservations.class)).isInstanceOf(MicrometerRedkitObservations.class);
			context.getBean(RateLimiter.class).tryAcquire("api", UUID.randomUUID().toString());
			assertThat(context.getBean(TestObservationRegistry.class)).hasSingleObservationThat()
				.hasNameEqualTo("redkit.ratelimit.decision")
				.hasLowCardinalityKeyValue("redkit.limit", "api")
				.hasLowCardinalityKeyValue("redkit.outcome", "allowed")
				.hasLowCardinalityKeyValue("team", "payments");
		});
	}

	@Test
	void decisionsAreStillObservedOnTheSameRegistryAfterTheContextStoppedAndStartedAgain() {
		this.runner.withUserConfiguration(Observed.class).run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiter.class);
			TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
			limiter.tryAcquire("api", UUID.randomUUID().toString());
			assertThat(registry).hasNumberOfObservationsWithNameEqualTo("redkit.ratelimit.decision", 1);
			context.stop();
			context.start();
			limiter.tryAcquire("api", UUID.randomUUID().toString());
			assertThat(registry).as("the registry found before the stop, held across it")
				.hasNumberOfObservationsWithNameEqualTo("redkit.ratelimit.decision", 2);
		});
	}

	@Test
	void withoutARegistryNothingIsObserved() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(RedkitObservations.class);
			assertThat(context.getBean(RateLimiter.class).tryAcquire("api", "k").allowed()).isTrue();
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Observed {

		@Bean
		TestObservationRegistry observationRegistry() {
			return TestObservationRegistry.create();
		}

		@Bean
		RedkitRateLimitObservationConvention teamConvention() {
			return new DefaultRedkitRateLimitObservationConvention() {

				@Override
				public KeyValues getLowCardinalityKeyValues(Observation.Context context) {
					return super.getLowCardinalityKeyValues(context).and("team", "payments");
				}

			};
		}

	}

}
