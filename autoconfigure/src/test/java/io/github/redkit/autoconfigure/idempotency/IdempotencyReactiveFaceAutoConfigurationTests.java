package io.github.redkit.autoconfigure.idempotency;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.idempotency.ReactiveIdempotentSteps;
import io.github.redkit.idempotency.internal.DefaultReactiveIdempotentSteps;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.AbstractApplicationContextRunner;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * Which applications get {@link ReactiveIdempotentSteps}: a reactive web application by
 * default, any application that asks, never a servlet application that did not ask; and
 * an application's own wins.
 */
class IdempotencyReactiveFaceAutoConfigurationTests {

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(DataRedisAutoConfiguration.class,
			RedkitAutoConfiguration.class, IdempotencyAutoConfiguration.class);

	private static <R extends AbstractApplicationContextRunner<R, ?, ?>> R configured(R runner) {
		return runner.withConfiguration(CONFIGURATIONS)
			.withPropertyValues(RedisServers.standalone().springProperties());
	}

	@Test
	void aReactiveWebApplicationGetsBothFaces() {
		configured(new ReactiveWebApplicationContextRunner()).run((context) -> {
			assertThat(context).hasSingleBean(IdempotentSteps.class);
			assertThat(context).hasSingleBean(ReactiveIdempotentSteps.class);
		});
	}

	@Test
	void aServletApplicationGetsNoReactiveFaceItDidNotAskFor() {
		configured(new WebApplicationContextRunner()).run((context) -> {
			assertThat(context).hasSingleBean(IdempotentSteps.class);
			assertThat(context).doesNotHaveBean(ReactiveIdempotentSteps.class);
		});
	}

	@Test
	void anyApplicationGetsItWhenItAsks() {
		configured(new ApplicationContextRunner()).withPropertyValues("redkit.reactive.enabled=true")
			.run((context) -> assertThat(context).hasSingleBean(ReactiveIdempotentSteps.class));
	}

	@Test
	void anApplicationsOwnReactiveStepsWin() {
		configured(new ReactiveWebApplicationContextRunner()).withBean(OwnReactiveSteps.class)
			.run((context) -> assertThat(context).getBean(ReactiveIdempotentSteps.class)
				.isInstanceOf(OwnReactiveSteps.class));
	}

	@Test
	void aFluxLimitBelowOneFailsStartUpNamingTheProperty() {
		configured(new ApplicationContextRunner()).withPropertyValues("redkit.idempotency.max-flux-elements=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redkit.idempotency.max-flux-elements"));
	}

	static class OwnReactiveSteps extends DefaultReactiveIdempotentSteps {

		OwnReactiveSteps(IdempotentSteps steps) {
			super(steps);
		}

	}

}
