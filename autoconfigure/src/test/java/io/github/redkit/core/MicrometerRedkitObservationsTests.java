package io.github.redkit.core;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.core.internal.MicrometerRedkitObservations;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.SmartInitializingSingleton;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How {@link MicrometerRedkitObservations} finds its registry: late, and once.
 */
class MicrometerRedkitObservationsTests {

	@Test
	void withoutARegistryOnceTheContextIsStartedNoDecisionLooksItUpAgain() {
		AtomicInteger lookups = new AtomicInteger();
		RedkitObservations observations = new MicrometerRedkitObservations(() -> {
			lookups.incrementAndGet();
			return null;
		}, List.of());
		// a bean factory lookup per decision cost a rate-limit decision more than its
		// interceptor did
		if (observations instanceof SmartInitializingSingleton bean) {
			bean.afterSingletonsInstantiated();
		}
		int atStart = lookups.get();
		for (int i = 0; i < 3; i++) {
			assertThat(observations.start(TEST_DECISION, "api")).isSameAs(RedkitObservation.NONE);
		}
		assertThat(lookups.get() - atStart).as("lookups after the start").isZero();
	}

	@Test
	void aRegistryThatArrivesBeforeTheContextIsStartedIsFound() {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler((context) -> true);
		ObservationRegistry[] available = { null };
		MicrometerRedkitObservations observations = new MicrometerRedkitObservations(() -> available[0], List.of());
		assertThat(observations.start(TEST_DECISION, "api")).isSameAs(RedkitObservation.NONE);
		available[0] = registry;
		observations.afterSingletonsInstantiated();
		try (RedkitObservation observation = observations.start(TEST_DECISION, "api")) {
			assertThat(observation).isNotSameAs(RedkitObservation.NONE);
		}
	}

	/** A kind of the tests' own: core knows no capability's kinds. */
	private static final RedkitObservationKind TEST_DECISION = new RedkitObservationKind("redkit.test.decision",
			"redkit.test");

}
