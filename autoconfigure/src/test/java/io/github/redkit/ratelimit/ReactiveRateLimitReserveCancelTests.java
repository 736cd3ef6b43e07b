package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeoutException;

import io.github.redkit.core.ClientPause;
import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.internal.DefaultReactiveRateLimiter;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A reservation whose subscriber cancels while Redis takes its estimate (a timeout, a
 * client that went away) leaves nothing taken: Redis runs the script anyway, and what it
 * took is given back as soon as it answers. {@code CLIENT PAUSE} holds the script on the
 * server to open the window.
 */
@Tag("tests-apart")
class ReactiveRateLimitReserveCancelTests {

	@PrivateRedis
	private static RedisServer redis;

	@Test
	void aReservationWhoseSubscriberTimedOutIsGivenBack() {
		LettuceConnectionFactory factory = redis.createConnectionFactory();
		try {
			RedisRateLimiter limiter = new RedisRateLimiter(new RedisScriptRunner(factory),
					new RedisKeyspace("rcancel-" + UUID.randomUUID()),
					Map.of("tokens", RateLimitPolicy.slidingWindow(RateLimitWindow.of(100, Duration.ofHours(1)))),
					new RateLimitSettings(LimitFailureMode.ALLOW, Duration.ofSeconds(10), Duration.ZERO),
					RedkitMetrics.NONE, RedkitObservations.NONE);
			ReactiveRateLimiter reactive = new DefaultReactiveRateLimiter(limiter);
			// connected before the pause, so that only the script waits
			limiter.reserve("tokens", List.of("warm-up"), 1);
			ClientPause pause = ClientPause.start(redis, Duration.ofMillis(1500));
			StepVerifier.create(reactive.reserve("tokens", List.of("acme"), 60).timeout(Duration.ofMillis(200)))
				.expectError(TimeoutException.class)
				.verify(Duration.ofSeconds(10));
			pause.awaitEnd();
			await("the estimate Redis took after the cancel is given back").atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> {
					RateLimitReservation look = limiter.reserve("tokens", List.of("acme"), 1);
					look.settle(0);
					return look.decision().remaining() == 99;
				});
		}
		finally {
			factory.destroy();
		}
	}

}
