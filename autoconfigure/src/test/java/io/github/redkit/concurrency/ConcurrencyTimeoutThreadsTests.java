package io.github.redkit.concurrency;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.concurrency.ConcurrencyLimitAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.core.ClientPause;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What follows an acquire that Redis does not answer in time (the failure mode, the
 * release sent after it, the caller's own continuation) runs on Redkit's threads, never
 * on the JDK's one timer thread ({@code CompletableFutureDelayScheduler}): a slow
 * follow-up there would delay every {@code orTimeout} of the process. The same holds for
 * a rate limit's local allowance, whose calls wait for the batch another call is taking
 * until their own deadline. {@code CLIENT PAUSE} holds the acquires on the server.
 */
class ConcurrencyTimeoutThreadsTests {

	private static final Duration PAUSE = Duration.ofMillis(1500);

	private static final int CALLERS = 8;

	private static final String JDK_TIMER = "CompletableFutureDelayScheduler";

	@PrivateRedis
	private static RedisServer redis;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedkitAutoConfiguration.class, ConcurrencyLimitAutoConfiguration.class))
		.withPropertyValues("redkit.concurrency-limit.timeout=200ms", "redkit.concurrency-limit.failure-cooldown=0s",
				"redkit.concurrency-limit.limits.one.limit=1", "spring.data.redis.timeout=10s")
		.withBean(LimitedService.class);

	@Test
	void aTimedOutAsyncAcquireIsAnsweredOffTheJdksTimerThread() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("redkit.key-prefix=rthreads-" + UUID.randomUUID())
			.run((context) -> {
				ConcurrencyLimiter limiter = context.getBean(ConcurrencyLimiter.class);
				// connected before the pause, so that only the acquires wait
				limiter.tryAcquire("one", "warm").ifPresent(ConcurrencyPermit::close);
				ClientPause pause = ClientPause.start(redis, PAUSE);
				List<CompletableFuture<String>> answeredOn = new ArrayList<>();
				for (int i = 0; i < 5; i++) {
					answeredOn.add(limiter.tryAcquireAsync("one", "k" + i)
						.handle((permit, ex) -> Thread.currentThread().getName()));
				}
				for (CompletableFuture<String> thread : answeredOn) {
					assertThat(thread).succeedsWithin(Duration.ofSeconds(10)).asString().doesNotContain(JDK_TIMER);
				}
				pause.awaitEnd();
			});
	}

	@Test
	void aMonoWhoseAcquireTimedOutRunsOffTheJdksTimerThread() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("redkit.key-prefix=rthreads-" + UUID.randomUUID())
			.run((context) -> {
				LimitedService service = context.getBean(LimitedService.class);
				assertThat(service.threadOfBody("warm").block(Duration.ofSeconds(10))).isNotNull();
				ClientPause pause = ClientPause.start(redis, PAUSE);
				List<CompletableFuture<String>> ranOn = new ArrayList<>();
				for (int i = 0; i < 5; i++) {
					// failure mode allow: the body runs without a permit once the acquire
					// timed out
					ranOn.add(service.threadOfBody("k" + i).toFuture());
				}
				for (CompletableFuture<String> thread : ranOn) {
					assertThat(thread).succeedsWithin(Duration.ofSeconds(10)).asString().doesNotContain(JDK_TIMER);
				}
				pause.awaitEnd();
			});
	}

	@Test
	void aLocalAllowanceCallWhoseWaitForABatchTimedOutIsAnsweredOffTheJdksTimerThread() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
					RateLimitAutoConfiguration.class))
			.withPropertyValues(redis.springProperties())
			.withPropertyValues("redkit.key-prefix=rthreads-" + UUID.randomUUID(), "redkit.rate-limit.timeout=200ms",
					"spring.data.redis.timeout=10s", "redkit.rate-limit.limits.hot.algorithm=fixed-window",
					"redkit.rate-limit.limits.hot.windows[0].limit=1000000",
					"redkit.rate-limit.limits.hot.windows[0].period=1h",
					"redkit.rate-limit.limits.hot.local-allowance.size=50",
					"redkit.rate-limit.limits.hot.local-allowance.max-age=1h")
			.run((context) -> {
				RateLimiter limiter = context.getBean(RateLimiter.class);
				assertThat(limiter.tryAcquire("hot", "warm").allowed()).isTrue();
				ClientPause pause = ClientPause.start(redis, PAUSE);
				// per identifier, the first call takes the batch and the others wait for
				// it until their own deadline: a waiter that came while the take was
				// being sent passes its deadline before the take's timeout
				List<CompletableFuture<String>> answeredOn = new CopyOnWriteArrayList<>();
				CyclicBarrier together = new CyclicBarrier(CALLERS);
				List<Thread> callers = new ArrayList<>();
				for (int t = 0; t < CALLERS; t++) {
					Thread caller = new Thread(() -> {
						for (int k = 0; k < 40; k++) {
							await(together);
							answeredOn.add(limiter.tryAcquireAsync("hot", List.of("api" + k), 1)
								.handle((decision, ex) -> Thread.currentThread().getName()));
						}
					});
					caller.start();
					callers.add(caller);
				}
				for (Thread caller : callers) {
					caller.join();
				}
				List<String> threads = new ArrayList<>();
				for (CompletableFuture<String> thread : answeredOn) {
					threads.add(thread.get(10, TimeUnit.SECONDS));
				}
				assertThat(threads).as("the threads of %d answers", threads.size())
					.noneMatch((thread) -> thread.contains(JDK_TIMER));
				pause.awaitEnd();
			});
	}

	private static void await(CyclicBarrier barrier) {
		try {
			barrier.await(10, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	static class LimitedService {

		@ConcurrencyLimited(value = "one", key = "#key")
		Mono<String> threadOfBody(String key) {
			return Mono.fromCallable(() -> Thread.currentThread().getName());
		}

	}

}
