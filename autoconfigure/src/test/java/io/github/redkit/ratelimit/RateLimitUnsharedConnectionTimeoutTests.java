package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.github.redkit.core.OneConnectionPool;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.testsupport.RespClient;
import io.github.redkit.testsupport.TcpProxy;
import io.lettuce.core.api.StatefulConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A decision waits at most {@code redkit.rate-limit.timeout} when the connection factory
 * does not share its native connection: the connection each script borrows from the pool
 * (Boot's default {@code max-wait}: for ever) or makes (a connect and a handshake, up to
 * the command timeout) is waited for off the caller's thread, so the caller's timeout
 * bounds it, and an asynchronous call returns its future at once.
 */
class RateLimitUnsharedConnectionTimeoutTests {

	private static final Duration TIMEOUT = Duration.ofMillis(300);

	// the timeout, and room for a loaded machine
	private static final Duration BOUND = Duration.ofSeconds(1);

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final RedisKeyspace keyspace = new RedisKeyspace("rlut-" + UUID.randomUUID());

	@Test
	void aDecisionEndsWithinItsTimeoutWhileAnotherBorrowerHoldsThePoolsOnlyConnection() throws Exception {
		whileAnotherBorrowerHoldsThePoolsOnlyConnection(TIMEOUT, this::assertDecisionsEndWithinTheirTimeout);
	}

	@Test
	void decisionsBeyondTheHandOffsBoundGetTheFailureModeAtOnceWhileThePoolIsHeld() throws Exception {
		// a timeout longer than filling the queue takes on a loaded machine: a decision
		// that timed out leaves the queue, and the one beyond the bound then found a
		// place
		// (a .ci/run with three module threads failed so, 'did not answer within 300 ms')
		whileAnotherBorrowerHoldsThePoolsOnlyConnection(Duration.ofSeconds(30), (limiter) -> {
			// one hand-off thread (the pool's max-active) waits for the pool for ever:
			// what is handed off after it waits, up to the bound
			int bound = RedisScriptRunner.HAND_OFF_WAITING_PER_THREAD;
			// the first is taken by that thread before the bound's worth is queued: one
			// taken late (a loaded machine) would free a place for the one beyond
			limiter.tryAcquireAsync("api", List.of("queued-0"), 1);
			await().atMost(Duration.ofSeconds(10)).until(OneConnectionPool::aThreadWaitsToBorrow);
			for (int i = 1; i <= bound; i++) {
				limiter.tryAcquireAsync("api", List.of("queued-" + i), 1);
			}
			CompletableFuture<RateLimitDecision> beyond = limiter.tryAcquireAsync("api", List.of("beyond"), 1);
			// failed for want of a place in the queue, not by its timeout once queued
			assertThat(beyond).failsWithin(BOUND)
				.withThrowableThat()
				.havingCause()
				.isInstanceOf(RateLimiterUnavailableException.class)
				.havingCause()
				.isInstanceOf(RedisConnectionFailureException.class)
				.withMessageContaining("wait for a connection already");
		});
	}

	/**
	 * Runs a test's body on a limiter whose factory has a pool of one connection, which
	 * another borrower holds in a blocking pop with no timeout (Boot's default
	 * {@code max-wait}: a borrow waits as long as it takes); the pop ends after it.
	 */
	private void whileAnotherBorrowerHoldsThePoolsOnlyConnection(Duration timeout, Consumer<RedisRateLimiter> body)
			throws Exception {
		RedisServer redis = RedisServers.standalone();
		GenericObjectPoolConfig<StatefulConnection<?, ?>> pool = new GenericObjectPoolConfig<>();
		pool.setMaxTotal(1);
		pool.setMaxWait(Duration.ofMillis(-1));
		LettuceConnectionFactory factory = unshared(new RedisStandaloneConfiguration(RedisServer.HOST, redis.port()),
				LettucePoolingClientConfiguration.builder()
					.poolConfig(pool)
					.commandTimeout(Duration.ofSeconds(10))
					.build());
		String list = "redkit-test:blocked-" + UUID.randomUUID();
		Thread borrower = new Thread(() -> {
			try (RedisConnection connection = factory.getConnection()) {
				connection.listCommands().bLPop(0, list.getBytes());
			}
		});
		try {
			RedisRateLimiter limiter = limiter(factory, timeout);
			warmUp(limiter);
			borrower.start();
			// the pop on the server: the borrower won the pool's only connection
			awaitBlockedInAPop(redis);
			body.accept(limiter);
		}
		finally {
			try (RespClient client = redis.client(redis.port())) {
				client.call("LPUSH", list, "done");
			}
			borrower.join(10_000);
			factory.destroy();
		}
	}

	@Test
	void aDecisionEndsWithinItsTimeoutWhileAConnectionIsMadeOnAFrozenLink() {
		TcpProxy link = TcpProxy.start(RedisServers.standalone().port());
		LettuceConnectionFactory factory = unshared(new RedisStandaloneConfiguration(RedisServer.HOST, link.port()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		try {
			RedisRateLimiter limiter = limiter(factory);
			warmUp(limiter);
			// every new connection's handshake is held
			link.partition();
			assertDecisionsEndWithinTheirTimeout(limiter);
		}
		finally {
			link.heal();
			factory.destroy();
			link.close();
		}
	}

	private void assertDecisionsEndWithinTheirTimeout(RedisRateLimiter limiter) {
		assertThatExceptionOfType(RateLimiterUnavailableException.class)
			.isThrownBy(() -> timed(() -> limiter.tryAcquire("api", "blocked")));
		assertThatExceptionOfType(RateLimiterUnavailableException.class)
			.isThrownBy(() -> timed(() -> limiter.reserve("api", List.of("blocked"), 1)));
		// an asynchronous call returns its future without waiting for the connection
		assertUnavailableWithinTheBound(timed(() -> limiter.tryAcquireAsync("api", List.of("blocked-async"), 1)));
		assertUnavailableWithinTheBound(timed(() -> limiter.reserveAsync("api", List.of("blocked-async"), 1)));
	}

	private static void assertUnavailableWithinTheBound(CompletableFuture<?> future) {
		assertThat(future).failsWithin(BOUND)
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(RateLimiterUnavailableException.class);
	}

	// connected and the script loaded: a cold first call may take longer than the timeout
	private static void warmUp(RateLimiter limiter) {
		await().atMost(Duration.ofSeconds(20))
			.ignoreExceptions()
			.until(() -> limiter.tryAcquire("api", "warm-up").allowed());
	}

	// the call runs on a plain thread of its own: one that waits for the pool for ever
	// fails the test instead of hanging it
	private static <T> T timed(Supplier<T> call) {
		return PlainThreadCalls.within(BOUND, call);
	}

	// a client blocked in BLPOP on the server, not only a thread on its way to borrow
	private static void awaitBlockedInAPop(RedisServer redis) {
		try (RespClient client = redis.client(redis.port())) {
			long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
			while (!client.callForString("CLIENT", "LIST").contains("cmd=blpop")) {
				assertThat(System.nanoTime()).as("the borrower's BLPOP reached the server").isLessThan(deadline);
				Thread.onSpinWait();
			}
		}
	}

	private static LettuceConnectionFactory unshared(RedisStandaloneConfiguration server,
			LettuceClientConfiguration client) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(server, client);
		factory.setShareNativeConnection(false);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private RedisRateLimiter limiter(LettuceConnectionFactory factory) {
		return limiter(factory, TIMEOUT);
	}

	private RedisRateLimiter limiter(LettuceConnectionFactory factory, Duration timeout) {
		RateLimitPolicy policy = RateLimitPolicy.slidingWindow(RateLimitWindow.of(10, Duration.ofHours(1)));
		return new RedisRateLimiter(new RedisScriptRunner(factory), this.keyspace, Map.of("api", policy),
				new RateLimitSettings(RateLimitFailureMode.DENY, timeout, Duration.ZERO, null),
				new MicrometerRedkitMetrics(() -> this.registry), RedkitObservations.NONE);
	}

}
