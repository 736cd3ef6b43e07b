package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.testsupport.TcpProxy;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A decision on a factory that shares its native connection gets the failure mode, within
 * {@code redkit.rate-limit.timeout}, once that connection is gone: after the factory
 * stopped (its {@code IllegalStateException} is not a 500), and after a reset whose new
 * connection hangs in its handshake (the reconnect under the factory's lock is not waited
 * for past the timeout).
 */
class RateLimitSharedFactoryResetTests {

	private static final Duration TIMEOUT = Duration.ofMillis(300);

	// the timeout, and room for a loaded machine
	private static final Duration BOUND = Duration.ofSeconds(2);

	private final RedisKeyspace keyspace = new RedisKeyspace("rlsr-" + UUID.randomUUID());

	@Test
	void aDecisionAfterTheFactoryStoppedGetsTheFailureMode() {
		try (TcpProxy link = TcpProxy.start(RedisServers.standalone().port())) {
			LettuceConnectionFactory factory = link.connectionFactory(Duration.ofSeconds(10));
			try {
				RedisRateLimiter limiter = limiter(factory);
				warmUp(limiter);
				factory.stop();
				assertFailureMode(limiter);
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void aDecisionAfterAResetWhoseReconnectHangsEndsWithinItsTimeout() {
		try (TcpProxy link = TcpProxy.start(RedisServers.standalone().port())) {
			LettuceConnectionFactory factory = link.connectionFactory(Duration.ofSeconds(10));
			try {
				RedisRateLimiter limiter = limiter(factory);
				warmUp(limiter);
				// the next connection's handshake is held
				link.partition();
				factory.resetConnection();
				assertFailureMode(limiter);
			}
			finally {
				link.heal();
				factory.destroy();
			}
		}
	}

	private static void assertFailureMode(RedisRateLimiter limiter) {
		// the failure mode is allow: the call let through, not a thrown
		// IllegalStateException
		assertThat(timed(() -> limiter.tryAcquire("api", "k")).allowed()).isTrue();
		assertThat(timed(() -> limiter.tryAcquire("api", List.of("k", "other"), 1)).allowed()).isTrue();
		CompletableFuture<RateLimitDecision> decision = timed(() -> limiter.tryAcquireAsync("api", List.of("k"), 1));
		assertThat(decision).succeedsWithin(BOUND).satisfies((answer) -> assertThat(answer.allowed()).isTrue());
	}

	private static void warmUp(RateLimiter limiter) {
		await().atMost(Duration.ofSeconds(20))
			.ignoreExceptions()
			.until(() -> limiter.tryAcquire("api", "warm-up").allowed()
					&& limiter.tryAcquire("api", List.of("warm-up", "other"), 1).allowed());
	}

	private static <T> T timed(Supplier<T> call) {
		return PlainThreadCalls.within(BOUND, call);
	}

	private RedisRateLimiter limiter(LettuceConnectionFactory factory) {
		RateLimitPolicy policy = RateLimitPolicy.slidingWindow(RateLimitWindow.of(1000, Duration.ofHours(1)));
		return new RedisRateLimiter(new RedisScriptRunner(factory), this.keyspace, Map.of("api", policy),
				new RateLimitSettings(RateLimitFailureMode.ALLOW, TIMEOUT, Duration.ZERO, null), RedkitMetrics.NONE,
				RedkitObservations.NONE);
	}

}
