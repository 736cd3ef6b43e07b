package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.github.redkit.core.ClientPause;
import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitObservation;
import io.github.redkit.core.RedkitObservationKind;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.RedkitOutcomes;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.internal.DefaultReactiveRateLimiter;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.awaitility.Awaitility.await;

/**
 * A decision whose subscriber cancels while Redis decides it (a timeout, a client that
 * went away) is still counted once Redis answers, also with an application's own
 * {@link RedkitObservations} that hands the answer it observes back as it is: the
 * subscriber's cancel must not complete the stage that records the decision.
 * {@code CLIENT PAUSE} holds the script on the server to open the window.
 */
@Tag("tests-apart")
class ReactiveRateLimitObservedCancelTests {

	@PrivateRedis
	private static RedisServer redis;

	// observes nothing, and hands the call's own answer back
	private static final RedkitObservations PASS_THROUGH = new RedkitObservations() {

		@Override
		public RedkitObservation start(RedkitObservationKind kind, String name) {
			return RedkitObservation.NONE;
		}

		@Override
		public <T> CompletableFuture<T> observeAsync(RedkitObservationKind kind, String name,
				Supplier<CompletableFuture<T>> call, RedkitOutcomes<? super T> outcomes) {
			return call.get();
		}

	};

	@Test
	void aDecisionWhoseSubscriberTimedOutIsCountedOnceRedisAnswers() {
		LettuceConnectionFactory factory = redis.createConnectionFactory();
		try {
			SimpleMeterRegistry registry = new SimpleMeterRegistry();
			RedisRateLimiter limiter = new RedisRateLimiter(new RedisScriptRunner(factory),
					new RedisKeyspace("rocancel-" + UUID.randomUUID()),
					Map.of("api", RateLimitPolicy.slidingWindow(RateLimitWindow.of(100, Duration.ofHours(1)))),
					new RateLimitSettings(LimitFailureMode.ALLOW, Duration.ofSeconds(10), Duration.ZERO),
					new MicrometerRedkitMetrics(() -> registry), PASS_THROUGH);
			ReactiveRateLimiter reactive = new DefaultReactiveRateLimiter(limiter);
			// connected before the pause, so that only the script waits
			limiter.tryAcquire("api", "warm-up");
			ClientPause pause = ClientPause.start(redis, Duration.ofMillis(1500));
			StepVerifier.create(reactive.tryAcquire("api", List.of("acme"), 1).timeout(Duration.ofMillis(200)))
				.expectError(TimeoutException.class)
				.verify(Duration.ofSeconds(10));
			pause.awaitEnd();
			await("the decision Redis made after the cancel is counted").atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> {
					Counter allowed = registry.find("redkit.ratelimit.decisions").tags("outcome", "allowed").counter();
					return allowed != null && allowed.count() == 2;
				});
		}
		finally {
			factory.destroy();
		}
	}

}
