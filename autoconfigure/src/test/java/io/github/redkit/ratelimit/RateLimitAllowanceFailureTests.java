package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.internal.LocalAllowance;
import io.github.redkit.ratelimit.internal.LocalRateLimiter;
import io.github.redkit.ratelimit.internal.RateLimitInstances;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * A local allowance while Redis does not answer, and with identifiers the limiter
 * refuses: every call decides within {@code redkit.rate-limit.timeout}, also the calls of
 * an identifier whose batch could not be taken. A take that threw at once (the failure
 * mode {@code deny} while cooling down, a blank identifier) used to leave the batch
 * "being taken" for ever, and every later call of that identifier waited for it.
 */
class RateLimitAllowanceFailureTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	private static final int LIMIT = 20;

	private static final int SIZE = 2;

	@PrivateRedis
	private static RedisServer redis;

	@PrivateRedis
	private static LettuceConnectionFactory connectionFactory;

	@Test
	void underDenyACallWhileCoolingDownHoldsUpNoLaterCallOfItsIdentifier() throws Exception {
		RedisRateLimiter limiter = limiter(RateLimitFailureMode.DENY, null, Duration.ofSeconds(2));
		useUpABatch(limiter);
		redis.pause();
		try {
			// the next call takes a batch, which Redis does not answer
			assertThat(decide(limiter, 1)).isInstanceOf(RateLimiterUnavailableException.class);
			// cooling down: refused at once, without Redis
			for (int i = 0; i < 3; i++) {
				assertThat(decide(limiter, 1)).isInstanceOf(RateLimiterUnavailableException.class);
				assertThat(decideAsync(limiter, 1)).isInstanceOf(RateLimiterUnavailableException.class);
			}
		}
		finally {
			redis.resume();
		}
		// once the cooldown is over, Redis decides again and batches are taken again
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(100))
			.untilAsserted(() -> assertThat(decide(limiter, 1)).isInstanceOf(RateLimitDecision.class));
		for (int i = 0; i < 10; i++) {
			assertThat(((RateLimitDecision) decide(limiter, 1)).allowed()).isTrue();
		}
	}

	@Test
	void underLocalTheCallsOfAnIdentifierWithAnAllowanceAreDecidedOnThisInstanceWithinTheTimeout() throws Exception {
		LocalRateLimiter local = new LocalRateLimiter(new RateLimitInstances(1), 1_000);
		RedisRateLimiter limiter = limiter(RateLimitFailureMode.LOCAL, local, Duration.ofSeconds(2));
		useUpABatch(limiter);
		redis.pause();
		int allowed = 0;
		try {
			for (int i = 0; i < 2 * LIMIT; i++) {
				Object answer = (i % 2 == 0) ? decide(limiter, 1) : decideAsync(limiter, 1);
				RateLimitDecision decision = (RateLimitDecision) answer;
				assertThat(decision.local()).isTrue();
				allowed += decision.allowed() ? 1 : 0;
			}
		}
		finally {
			redis.resume();
		}
		// this instance's share of the limit (one instance: all of it), never more
		assertThat(allowed).isPositive().isLessThanOrEqualTo(LIMIT);
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(100))
			.untilAsserted(() -> assertThat(((RateLimitDecision) decide(limiter, 1)).local()).isFalse());
	}

	@Test
	void aBlankIdentifierIsRefusedAtOnceAndHoldsUpNoLaterCall() throws Exception {
		RedisRateLimiter limiter = limiter(RateLimitFailureMode.ALLOW, null, Duration.ofSeconds(2));
		for (int i = 0; i < 3; i++) {
			assertThat(decide(limiter, " ", 1)).isInstanceOf(IllegalArgumentException.class);
			assertThat(decideAsync(limiter, " ", 1)).isInstanceOf(IllegalArgumentException.class);
		}
		assertThat(decide(limiter, " ", 1)).asInstanceOf(InstanceOfAssertFactories.THROWABLE)
			.hasMessage("Rate limit 'hot': a key must not be null, empty or blank");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire("hot", List.of("\t"), 1));
		assertThat(((RateLimitDecision) decide(limiter, "api", 1)).allowed()).isTrue();
	}

	/**
	 * Many calls of one hot identifier while Redis does not answer, with no cooldown:
	 * each is decided within the timeout from its own start. They used to queue behind
	 * the failing take, each waiter becoming the next taker and waiting a full timeout
	 * again (the last about 20 timeouts).
	 */
	@ParameterizedTest
	@EnumSource(value = RateLimitFailureMode.class, names = { "ALLOW", "DENY" })
	void everyCallOfAHotIdentifierIsDecidedWithinTheTimeoutFromItsOwnStart(RateLimitFailureMode mode) throws Exception {
		Duration timeout = Duration.ofMillis(500);
		RedisRateLimiter limiter = limiter(mode, null, Duration.ZERO, timeout);
		useUpABatch(limiter);
		CommandStats before = redis.commandStats();
		redis.pause();
		List<Long> millis = new CopyOnWriteArrayList<>();
		try {
			List<Thread> threads = new ArrayList<>();
			CountDownLatch go = new CountDownLatch(1);
			for (int i = 0; i < 20; i++) {
				Thread thread = new Thread(() -> {
					try {
						go.await();
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
						return;
					}
					long start = System.nanoTime();
					try {
						limiter.tryAcquire("hot", List.of("api"), 1);
					}
					catch (RuntimeException ex) {
						// the failure mode deny
					}
					millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
				});
				thread.start();
				threads.add(thread);
			}
			go.countDown();
			for (Thread thread : threads) {
				thread.join(30_000);
			}
		}
		finally {
			redis.resume();
		}
		assertThat(millis).hasSize(20).allSatisfy((took) -> assertThat(took).isLessThan(timeout.toMillis() + 400));
		// a call whose time ran out while it waited sends nothing (a batch it took would
		// land once Redis answers again and hold permits no call is handed): the first
		// take, a few taken by calls that started a little later, and this call, sent
		// after the others on the same connection so that they have landed
		limiter.tryAcquire("hot", List.of("after-" + mode), 1);
		CommandStats sent = redis.commandStats().since(before);
		assertThat(sent.calls("evalsha") + sent.calls("eval")).as("scripts sent: %s", sent).isLessThanOrEqualTo(6);
	}

	private static void useUpABatch(RedisRateLimiter limiter) {
		for (int i = 0; i < SIZE; i++) {
			assertThat(limiter.tryAcquire("hot", List.of("api"), 1).allowed()).isTrue();
		}
	}

	/**
	 * A call that must decide (or fail) within the timeout; a call that hangs fails the
	 * test instead of holding it up.
	 */
	private static Object decide(RedisRateLimiter limiter, int cost) throws Exception {
		return decide(limiter, "api", cost);
	}

	private static Object decide(RedisRateLimiter limiter, String key, int cost) throws Exception {
		CompletableFuture<Object> answer = CompletableFuture.supplyAsync(() -> {
			try {
				return limiter.tryAcquire("hot", List.of(key), cost);
			}
			catch (RuntimeException ex) {
				return ex;
			}
		});
		return within(answer);
	}

	private static Object decideAsync(RedisRateLimiter limiter, int cost) throws Exception {
		return decideAsync(limiter, "api", cost);
	}

	private static Object decideAsync(RedisRateLimiter limiter, String key, int cost) throws Exception {
		CompletableFuture<RateLimitDecision> decision;
		try {
			decision = limiter.tryAcquireAsync("hot", List.of(key), cost);
		}
		catch (RuntimeException ex) {
			throw new AssertionError("an asynchronous decision threw instead of failing its answer", ex);
		}
		return within(decision.handle((result, ex) -> (ex != null) ? RedisScriptRunner.unwrap(ex) : result));
	}

	private static Object within(CompletableFuture<?> answer) throws InterruptedException, ExecutionException {
		long start = System.nanoTime();
		try {
			// the timeout, and a margin for a busy machine
			return answer.get(TIMEOUT.toMillis() + 500, TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			throw new AssertionError("no decision after " + Duration.ofNanos(System.nanoTime() - start).toMillis()
					+ " ms: the call waits for a batch that is never taken", ex);
		}
	}

	private static RedisRateLimiter limiter(RateLimitFailureMode mode, LocalRateLimiter local, Duration cooldown) {
		return limiter(mode, local, cooldown, TIMEOUT);
	}

	private static RedisRateLimiter limiter(RateLimitFailureMode mode, LocalRateLimiter local, Duration cooldown,
			Duration timeout) {
		RateLimitPolicy hot = RateLimitPolicy.slidingWindow(RateLimitWindow.of(LIMIT, Duration.ofHours(1)));
		RedisRateLimiter limiter = new RedisRateLimiter(new RedisScriptRunner(connectionFactory),
				new RedisKeyspace("rl-allow-fail-" + UUID.randomUUID()), Map.of("hot", hot),
				new RateLimitSettings(mode, timeout, cooldown, local,
						Map.of("hot", new LocalAllowance(SIZE, Duration.ofHours(1)))),
				RedkitMetrics.NONE, RedkitObservations.NONE);
		// connected and the script loaded (slow on a busy machine), the cooldown over;
		// a cost above the batch's size goes to Redis itself
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).ignoreExceptions().until(() -> {
			RateLimitDecision decision = limiter.tryAcquire("hot", List.of("warm-up"), SIZE + 1);
			return !decision.local() && decision.remaining() >= 0;
		});
		return limiter;
	}

}
