package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservationContext;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Rate limit decisions as Micrometer observations.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
class RateLimitObservationTests {

	@Parameter
	RedisTopology topology;

	private final TestObservationRegistry registry = TestObservationRegistry.create();

	private final String limit = "obs-" + UUID.randomUUID();

	private final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

	@BeforeEach
	void collectStoppedContexts() {
		this.registry.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

			@Override
			public void onStop(Observation.Context context) {
				RateLimitObservationTests.this.stopped.add(context);
			}

		});
	}

	private RedisRateLimiter limiter(RedkitRateLimitObservationConvention... conventions) {
		RedisScriptRunner runner = new RedisScriptRunner(this.topology.connectionFactory());
		warmUp(runner);
		return new RedisRateLimiter(runner, new RedisKeyspace("rl-obs-test"),
				Map.of(this.limit, RateLimitPolicy.slidingWindow(RateLimitWindow.of(1, Duration.ofHours(1)))),
				new RateLimitSettings(LimitFailureMode.ALLOW, Duration.ofSeconds(5), Duration.ZERO), RedkitMetrics.NONE,
				new MicrometerRedkitObservations(() -> this.registry, List.of(conventions)));
	}

	/**
	 * Decides on another limit, unobserved, until Redis decides one: a loaded machine's
	 * first decision of a runner (its connection, the script's load, the JVM's classes
	 * still cold) may outlast the timeout and be decided by the failure mode, which the
	 * observed decisions must not be.
	 */
	private void warmUp(RedisScriptRunner runner) {
		RedisRateLimiter warm = new RedisRateLimiter(runner, new RedisKeyspace("rl-obs-test"),
				Map.of("warm-up", RateLimitPolicy.slidingWindow(RateLimitWindow.of(1_000_000, Duration.ofHours(1)))),
				new RateLimitSettings(LimitFailureMode.ALLOW, Duration.ofSeconds(5), Duration.ZERO), RedkitMetrics.NONE,
				RedkitObservations.NONE);
		await().atMost(Duration.ofSeconds(60)).until(() -> warm.tryAcquire("warm-up", this.limit).decidedAt() != null);
	}

	@Test
	void everyDecisionIsAnObservationNamedByItsLimitAndOutcomeNeverByItsKey() {
		RedisRateLimiter limiter = limiter();
		limiter.tryAcquire(this.limit, "user-1");
		limiter.tryAcquire(this.limit, "user-1");
		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("redkit.ratelimit.decision", 2)
			.hasAnObservation((observation) -> observation.hasNameEqualTo("redkit.ratelimit.decision")
				.hasContextualNameEqualTo("redkit.ratelimit.decision " + this.limit)
				.hasLowCardinalityKeyValue("redkit.limit", this.limit)
				.hasLowCardinalityKeyValue("redkit.outcome", "allowed"))
			.hasAnObservation((observation) -> observation.hasLowCardinalityKeyValue("redkit.outcome", "denied"));
		Assertions.assertThat(this.stopped)
			.hasSize(2)
			.allSatisfy((context) -> Assertions.assertThat(context.getAllKeyValues().stream().map(KeyValue::getValue))
				.doesNotContain("user-1"));
	}

	// started, the limiter holds the registry Redkit's own observations settled on and
	// asks it at each decision whether anything observes: a handler added later sees
	// the next decision, as it did when the observations were asked
	@Test
	void aStartedLimiterObservesOnceAHandlerIsAddedToTheSettledRegistry() {
		ObservationRegistry registry = ObservationRegistry.create();
		MicrometerRedkitObservations observations = new MicrometerRedkitObservations(() -> registry, List.of());
		observations.afterSingletonsInstantiated();
		RedisRateLimiter limiter = new RedisRateLimiter(new RedisScriptRunner(this.topology.connectionFactory()),
				new RedisKeyspace("rl-obs-test"),
				Map.of(this.limit, RateLimitPolicy.slidingWindow(RateLimitWindow.of(10, Duration.ofHours(1)))),
				new RateLimitSettings(LimitFailureMode.ALLOW, Duration.ofSeconds(5), Duration.ZERO), RedkitMetrics.NONE,
				observations);
		limiter.start();
		try {
			limiter.tryAcquire(this.limit, "user-1");
			List<String> stopped = new CopyOnWriteArrayList<>();
			registry.observationConfig().observationHandler(new ObservationHandler<>() {

				@Override
				public boolean supportsContext(Observation.Context context) {
					return true;
				}

				@Override
				public void onStop(Observation.Context context) {
					stopped.add(context.getName());
				}

			});
			limiter.tryAcquire(this.limit, "user-1");
			Assertions.assertThat(stopped).containsExactly("redkit.ratelimit.decision");
		}
		finally {
			limiter.stop();
		}
	}

	@Test
	void aConventionBeanReplacesTheDefaultOne() {
		RedisRateLimiter limiter = limiter(new DefaultRedkitRateLimitObservationConvention() {

			@Override
			public KeyValues getLowCardinalityKeyValues(Observation.Context context) {
				return super.getLowCardinalityKeyValues(context).and("tier",
						((RedkitObservationContext) context).getObservedName().startsWith("obs-") ? "test" : "other");
			}

		});
		limiter.tryAcquire(this.limit, "user-1");
		assertThat(this.registry).hasSingleObservationThat()
			.hasNameEqualTo("redkit.ratelimit.decision")
			.hasLowCardinalityKeyValue("tier", "test")
			.hasLowCardinalityKeyValue("redkit.outcome", "allowed");
	}

}
