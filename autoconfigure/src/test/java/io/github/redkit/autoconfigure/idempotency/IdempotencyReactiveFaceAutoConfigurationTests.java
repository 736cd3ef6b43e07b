package io.github.redkit.autoconfigure.idempotency;

import io.github.redkit.autoconfigure.ReactiveFaceTests;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.idempotency.ReactiveIdempotentSteps;
import io.github.redkit.idempotency.internal.DefaultReactiveIdempotentSteps;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;

/**
 * Which applications get {@link ReactiveIdempotentSteps}: a reactive web application by
 * default, any application that asks, never a servlet application that did not ask; and
 * an application's own wins.
 */
class IdempotencyReactiveFaceAutoConfigurationTests extends ReactiveFaceTests {

	IdempotencyReactiveFaceAutoConfigurationTests() {
		super(IdempotencyAutoConfiguration.class, IdempotentSteps.class, ReactiveIdempotentSteps.class);
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
