package io.github.redkit.resilience4j;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.concurrency.ConcurrencyLimitAutoConfiguration;
import io.github.redkit.concurrency.ConcurrencyLimiter;
import io.github.redkit.concurrency.ConcurrencyPermit;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedkitBulkhead} with calls that end on another thread than the one that took
 * their place, as resilience4j-kotlin's coroutines do ({@code acquirePermission()} where
 * the coroutine runs, {@code onComplete()} where it resumes): after a Redis blip under
 * {@code failure-mode: allow}, a call let through uncounted never gives back the place of
 * a leased call still running, whichever thread it ends on (issue 45 review).
 */
class RedkitBulkheadThreadsTests {

	@PrivateRedis
	private static RedisServer redis;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				ConcurrencyLimitAutoConfiguration.class))
		.withPropertyValues("redkit.concurrency-limit.timeout=1s", "redkit.concurrency-limit.failure-cooldown=0",
				"redkit.concurrency-limit.limits.reports.limit=1", "redkit.concurrency-limit.limits.pair.limit=2",
				"spring.data.redis.timeout=5s")
		// a key prefix per test: a test that fails leaves no place taken for the next
		.withPropertyValues("redkit.key-prefix=bulkhead-" + UUID.randomUUID());

	// one thread per call: Resilience4j's synchronous decorators take and give back on
	// the call's thread
	private final List<ExecutorService> threads = new ArrayList<>();

	@AfterEach
	void stopThreads() {
		this.threads.forEach(ExecutorService::shutdownNow);
	}

	// resilience4j-kotlin's executeSuspendFunction: acquirePermission() where the
	// coroutine
	// runs (maxWaitDuration 0), then onComplete() where it resumes; two coroutines
	// interleave on one dispatcher thread
	@Test
	void twoCoroutinesInterleavedOnOneThreadAfterABlipKeepTheLeasedPlace() {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			warm(context);
			Bulkhead bulkhead = bulkhead(context, "reports", Duration.ZERO);
			ExecutorService dispatcher = thread();
			redis.pause();
			try {
				// coroutine B: let through uncounted by failure-mode allow, then suspends
				on(dispatcher, bulkhead::acquirePermission);
			}
			finally {
				redis.resume();
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> inFlight(context, "reports") == 0);
			// coroutine C on the same dispatcher thread: a leased place, then suspends
			on(dispatcher, bulkhead::acquirePermission);
			assertThat(inFlight(context, "reports")).as("C's place").isEqualTo(1);
			// B resumes on that thread and ends
			on(dispatcher, bulkhead::onComplete);
			assertThat(inFlight(context, "reports")).as("C's place, once the uncounted B ended").isEqualTo(1);
			assertThat(on(thread(), bulkhead::tryAcquirePermission)).as("D while C runs").isFalse();
		});
	}

	// the same with maxWaitDuration > 0: acquirePermission() on Dispatchers.IO, the call
	// ends on whichever thread the coroutine resumes
	@Test
	void aCoroutineThatResumesOnAnotherThreadAfterABlipKeepsTheLeasedPlace() {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			warm(context);
			Bulkhead bulkhead = bulkhead(context, "reports", Duration.ZERO);
			ExecutorService io1 = thread();
			ExecutorService io2 = thread();
			redis.pause();
			try {
				on(io1, bulkhead::acquirePermission);
			}
			finally {
				redis.resume();
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> inFlight(context, "reports") == 0);
			on(io2, bulkhead::acquirePermission);
			// B (taken on io1) resumes on io2 and ends
			on(io2, bulkhead::onComplete);
			assertThat(inFlight(context, "reports")).as("C's place, once the uncounted B ended").isEqualTo(1);
			assertThat(on(thread(), bulkhead::tryAcquirePermission)).as("D while C runs").isFalse();
		});
	}

	@Test
	void aPermittedEventConsumerThatThrowsFailsTheCallWhichHoldsNoPlace() {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			warm(context);
			Bulkhead bulkhead = bulkhead(context, "reports", Duration.ZERO);
			bulkhead.getEventPublisher().onCallPermitted((event) -> {
				throw new IllegalStateException("a consumer's bug");
			});
			assertThatIllegalStateException().isThrownBy(() -> bulkhead.executeSupplier(() -> "never run"))
				.withMessage("a consumer's bug");
			assertThat(inFlight(context, "reports")).as("the failed call's place").isZero();
		});
	}

	/**
	 * Takes and gives back a permit from Redis: connected and the scripts loaded, so that
	 * a slow first call on a busy machine is not taken for a Redis that does not answer.
	 */
	private static void warm(ApplicationContext context) {
		ConcurrencyLimiter limiter = context.getBean(ConcurrencyLimiter.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> {
			Optional<ConcurrencyPermit> permit = limiter.tryAcquire("pair", "warm-up");
			permit.ifPresent(ConcurrencyPermit::close);
			return permit.filter(ConcurrencyPermit::acquired).isPresent();
		});
	}

	private static Bulkhead bulkhead(ApplicationContext context, String limit, Duration maxWait) {
		return new RedkitBulkhead(limit, BulkheadConfig.custom().maxWaitDuration(maxWait).build(), Map.of(),
				context.getBean(ConcurrencyLimiter.class), limit, limit);
	}

	// calls in flight in Redis: the members of the limit's sorted set
	private static long inFlight(ApplicationContext context, String limit) {
		String key = context.getBean(RedisKeyspace.class).key("concurrency").part(limit).tag(limit).build();
		Long members = context.getBean(StringRedisTemplate.class).opsForZSet().zCard(key);
		return (members != null) ? members : 0;
	}

	private ExecutorService thread() {
		ExecutorService thread = Executors.newSingleThreadExecutor();
		this.threads.add(thread);
		return thread;
	}

	private static void on(ExecutorService thread, Runnable action) throws Exception {
		thread.submit(action).get(10, TimeUnit.SECONDS);
	}

	private static <T> T on(ExecutorService thread, Callable<T> action) throws Exception {
		return thread.submit(action).get(10, TimeUnit.SECONDS);
	}

}
