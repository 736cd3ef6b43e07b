package io.github.redkit.resilience4j;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.concurrency.ConcurrencyLimitAutoConfiguration;
import io.github.redkit.concurrency.ConcurrencyLimiter;
import io.github.redkit.concurrency.ConcurrencyLimiterUnavailableException;
import io.github.redkit.concurrency.ConcurrencyPermit;
import io.github.redkit.concurrency.ConcurrencyPolicy;
import io.github.redkit.concurrency.internal.RedisConcurrencyLimiter;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.bulkhead.BulkheadFullException;
import io.github.resilience4j.bulkhead.event.BulkheadEvent;
import io.github.resilience4j.reactor.bulkhead.operator.BulkheadOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedkitBulkhead} on a Redis of its own that the tests freeze ({@code SIGSTOP}):
 * each call gives back its own place, on every path Resilience4j has (synchronous,
 * exception, {@code CompletionStage}, Reactor, cancel), so the places in Redis always
 * cover the leased calls still running, a Redis blip under {@code failure-mode: allow}
 * included, whichever thread a call ends on (resilience4j-kotlin's coroutines take where
 * they run and give back where they resume); a caller waits at most
 * {@code maxWaitDuration} (Redkit's timeout for its first ask); {@code changeConfig}
 * changes the limit this instance's calls are checked against.
 */
class RedkitBulkheadTests {

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

	@Test
	void anUnleasedCallThatEndsNeverGivesBackThePlaceOfALeasedCallStillRunning() {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			warm(context);
			Bulkhead bulkhead = bulkhead(context, "reports", Duration.ZERO);
			ExecutorService b = thread();
			ExecutorService c = thread();
			uncountedCallEndsWhileALeasedOneRuns(context, bulkhead, b, c, b);
			on(c, bulkhead::onComplete);
			assertThat(inFlight(context, "reports")).isZero();
		});
	}

	@Test
	void aFailOpenBulkheadKeepsItsBoundAfterARedisBlipWhateverOrderTheCallsEndIn() {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			warm(context);
			Bulkhead bulkhead = bulkhead(context, "pair", Duration.ZERO);
			List<ExecutorService> uncounted = List.of(thread(), thread(), thread());
			redis.pause();
			try {
				for (ExecutorService call : uncounted) {
					on(call, bulkhead::acquirePermission);
				}
			}
			finally {
				redis.resume();
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> inFlight(context, "pair") == 0);
			ExecutorService c1 = thread();
			ExecutorService c2 = thread();
			on(c1, bulkhead::acquirePermission);
			on(c2, bulkhead::acquirePermission);
			for (ExecutorService call : uncounted) {
				on(call, bulkhead::onComplete);
				assertThat(inFlight(context, "pair")).as("the places of C1 and C2").isEqualTo(2);
				assertThat(on(thread(), bulkhead::tryAcquirePermission)).as("a third call").isFalse();
			}
			on(c2, bulkhead::onComplete);
			on(c1, bulkhead::onComplete);
			assertThat(inFlight(context, "pair")).isZero();
		});
	}

	// resilience4j-kotlin's executeSuspendFunction: acquirePermission() where the
	// coroutine runs (maxWaitDuration 0), then onComplete() where it resumes; two
	// coroutines interleave on one dispatcher thread (issue 45 review)
	@Test
	void twoCoroutinesInterleavedOnOneThreadAfterABlipKeepTheLeasedPlace() {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			warm(context);
			ExecutorService dispatcher = thread();
			uncountedCallEndsWhileALeasedOneRuns(context, bulkhead(context, "reports", Duration.ZERO), dispatcher,
					dispatcher, dispatcher);
		});
	}

	// the same with maxWaitDuration > 0: acquirePermission() on Dispatchers.IO, the call
	// ends on whichever thread the coroutine resumes (B, taken on io1, ends on io2)
	@Test
	void aCoroutineThatResumesOnAnotherThreadAfterABlipKeepsTheLeasedPlace() {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			warm(context);
			ExecutorService io1 = thread();
			ExecutorService io2 = thread();
			uncountedCallEndsWhileALeasedOneRuns(context, bulkhead(context, "reports", Duration.ZERO), io1, io2, io2);
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

	@Test
	void aCallThatThrowsGivesBackItsPlace() {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			warm(context);
			Bulkhead bulkhead = bulkhead(context, "reports", Duration.ZERO);
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> bulkhead.executeSupplier(() -> {
				assertThat(inFlight(context, "reports")).isEqualTo(1);
				throw new IllegalStateException("failed");
			}));
			assertThat(inFlight(context, "reports")).isZero();
			assertThat(bulkhead.executeSupplier(() -> "next")).isEqualTo("next");
		});
	}

	@Test
	void aCompletionStageGivesBackItsPlaceWhenItFailsOrIsCancelled() {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			warm(context);
			Bulkhead bulkhead = bulkhead(context, "reports", Duration.ZERO);
			CompletableFuture<String> failing = new CompletableFuture<>();
			CompletableFuture<String> call = Bulkhead.decorateCompletionStage(bulkhead, () -> failing)
				.get()
				.toCompletableFuture();
			assertThat(inFlight(context, "reports")).isEqualTo(1);
			failing.completeExceptionally(new IllegalStateException("failed"));
			assertThat(call).isCompletedExceptionally();
			assertThat(inFlight(context, "reports")).isZero();
			CompletableFuture<String> slow = new CompletableFuture<>();
			Bulkhead.decorateCompletionStage(bulkhead, () -> slow).get();
			assertThat(Bulkhead.decorateCompletionStage(bulkhead, () -> slow).get().toCompletableFuture())
				.as("refused while the first runs")
				.isCompletedExceptionally();
			// cancelled on another thread, as a TimeLimiter does
			CompletableFuture.runAsync(() -> slow.cancel(true)).join();
			assertThat(inFlight(context, "reports")).isZero();
		});
	}

	@Test
	void aMonoThroughResilience4jsOperatorGivesBackItsPlaceWhenCancelledOrFailed() {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			warm(context);
			Bulkhead bulkhead = bulkhead(context, "reports", Duration.ZERO);
			Disposable running = Mono.never().transformDeferred(BulkheadOperator.of(bulkhead)).subscribe();
			assertThat(inFlight(context, "reports")).isEqualTo(1);
			assertThat(Mono.just("x").transformDeferred(BulkheadOperator.of(bulkhead)).onErrorReturn("busy").block())
				.isEqualTo("busy");
			running.dispose();
			assertThat(inFlight(context, "reports")).isZero();
			assertThat(Mono.error(new IllegalStateException("failed"))
				.transformDeferred(BulkheadOperator.of(bulkhead))
				.onErrorReturn("failed")
				.block()).isEqualTo("failed");
			assertThat(inFlight(context, "reports")).isZero();
		});
	}

	@Test
	void aCallerWaitsUpToMaxWaitDurationForAPlaceGivenBackHereOrByAnotherInstance() {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			warm(context);
			Bulkhead here = bulkhead(context, "reports", Duration.ofSeconds(10));
			Bulkhead otherInstance = bulkhead(context, "reports", Duration.ZERO);
			ExecutorService holder = thread();
			on(holder, here::acquirePermission);
			CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(here::tryAcquirePermission, thread());
			on(holder, here::onComplete);
			assertThat(waiter).succeedsWithin(Duration.ofSeconds(5)).isEqualTo(true);
			assertThat(on(thread(), otherInstance::tryAcquirePermission)).isFalse();
			// given back by another instance: found by asking Redis again
			CompletableFuture<Boolean> otherWaiter = CompletableFuture
				.supplyAsync(bulkhead(context, "reports", Duration.ofSeconds(10))::tryAcquirePermission, thread());
			here.onComplete();
			assertThat(otherWaiter).succeedsWithin(Duration.ofSeconds(5)).isEqualTo(true);
			Bulkhead shortWait = bulkhead(context, "reports", Duration.ofMillis(300));
			long start = System.nanoTime();
			assertThat(shortWait.tryAcquirePermission()).isFalse();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(250),
					Duration.ofSeconds(2));
		});
	}

	@Test
	void aCallerWaitingForAPlaceWhileRedisFreezesIsRefusedWhenItsWaitEndsNotAtRedkitsTimeout() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("redkit.concurrency-limit.timeout=3s")
			.run((context) -> {
				warm(context);
				ConcurrencyLimiter limiter = context.getBean(ConcurrencyLimiter.class);
				// Redis freezes once the waiter has been refused a first time
				ConcurrencyLimiter freezing = new FreezingAfterARefusal(limiter);
				Bulkhead holder = bulkhead(context, "reports", Duration.ZERO);
				holder.acquirePermission();
				Bulkhead waiting = new RedkitBulkhead("reports",
						BulkheadConfig.custom().maxWaitDuration(Duration.ofMillis(300)).build(), Map.of(), freezing,
						"reports", "reports");
				long start = System.nanoTime();
				boolean permitted;
				try {
					permitted = waiting.tryAcquirePermission();
				}
				finally {
					redis.resume();
				}
				Duration waited = Duration.ofNanos(System.nanoTime() - start);
				assertThat(permitted).as("refused: no place came back within the wait").isFalse();
				assertThat(waited).as("the 300 ms wait, not Redkit's 3 s timeout").isLessThan(Duration.ofMillis(1500));
				holder.onComplete();
				await().atMost(Duration.ofSeconds(10)).until(() -> inFlight(context, "reports") == 0);
			});
	}

	@Test
	void changeConfigSetsTheLimitThisInstancesCallsAreCheckedAgainst() {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			warm(context);
			Bulkhead changed = bulkhead(context, "reports", Duration.ZERO);
			Bulkhead unchanged = bulkhead(context, "reports", Duration.ZERO);
			changed.changeConfig(BulkheadConfig.custom().maxConcurrentCalls(2).build());
			assertThat(changed.getMetrics().getMaxAllowedConcurrentCalls()).isEqualTo(2);
			assertThat(unchanged.getMetrics().getMaxAllowedConcurrentCalls()).isEqualTo(1);
			assertThat(on(thread(), changed::tryAcquirePermission)).isTrue();
			assertThat(on(thread(), unchanged::tryAcquirePermission)).as("the unchanged instance's limit: 1").isFalse();
			assertThat(on(thread(), changed::tryAcquirePermission)).as("the changed instance's limit: 2").isTrue();
			assertThat(on(thread(), changed::tryAcquirePermission)).isFalse();
			assertThat(inFlight(context, "reports")).isEqualTo(2);
			assertThatIllegalArgumentException()
				.isThrownBy(() -> changed.changeConfig(BulkheadConfig.custom().maxConcurrentCalls(0).build()))
				.withMessageContaining("maxConcurrentCalls");
		});
	}

	@Test
	void whileTheApplicationStopsACallInFlightGivesBackItsPlaceAndANewCallIsRefusedHoldingNothing() {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			warm(context);
			Bulkhead bulkhead = bulkhead(context, "pair", Duration.ZERO);
			ExecutorService inFlight = thread();
			on(inFlight, bulkhead::acquirePermission);
			// the limiter is destroyed first (it renews no lease any more), Redis still
			// usable: a graceful shutdown draining its calls
			context.getBean(RedisConcurrencyLimiter.class).destroy();
			List<BulkheadEvent.Type> events = new CopyOnWriteArrayList<>();
			bulkhead.getEventPublisher().onEvent((event) -> events.add(event.getEventType()));
			// refused as Resilience4j refuses, so that the fallbacks (which match
			// BulkheadFullException) answer: not an exception of Redkit's
			assertThatExceptionOfType(BulkheadFullException.class).isThrownBy(bulkhead::acquirePermission);
			assertThat(Bulkhead.decorateCompletionStage(bulkhead, () -> CompletableFuture.completedFuture("x"))
				.get()
				.toCompletableFuture()).failsWithin(Duration.ofSeconds(5))
				.withThrowableOfType(ExecutionException.class)
				.withCauseInstanceOf(BulkheadFullException.class);
			assertThat(events).containsExactly(BulkheadEvent.Type.CALL_REJECTED, BulkheadEvent.Type.CALL_REJECTED);
			assertThat(inFlight(context, "pair")).as("the call in flight only").isEqualTo(1);
			on(inFlight, bulkhead::onComplete);
			assertThat(inFlight(context, "pair")).isZero();
			// nothing left to give back: a release more does nothing
			bulkhead.releasePermission();
			assertThat(inFlight(context, "pair")).isZero();
		});
	}

	@Test
	void aCallMadeOnceTheApplicationHasClosedIsDecidedByTheFailureMode() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("redkit.concurrency-limit.failure-mode=deny")
			.run((context) -> {
				warm(context);
				Bulkhead bulkhead = bulkhead(context, "reports", Duration.ZERO);
				List<BulkheadEvent.Type> events = new CopyOnWriteArrayList<>();
				bulkhead.getEventPublisher().onEvent((event) -> events.add(event.getEventType()));
				// closed (Redkit's script runner with it): a call still made then, by a
				// thread the shutdown did not wait for, cannot ask Redis
				context.close();
				assertThatExceptionOfType(BulkheadFullException.class).isThrownBy(bulkhead::acquirePermission);
				assertThat(events).containsExactly(BulkheadEvent.Type.CALL_REJECTED);
			});
	}

	@Test
	void aCallerWaitingForAPlaceWhileTheApplicationStopsIsRefusedHoldingNothing() {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			warm(context);
			Bulkhead holder = bulkhead(context, "reports", Duration.ZERO);
			ExecutorService holding = thread();
			on(holding, holder::acquirePermission);
			Bulkhead waiting = bulkhead(context, "reports", Duration.ofSeconds(10));
			CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(waiting::tryAcquirePermission, thread());
			// refused a first time, it waits and asks again
			await().atMost(Duration.ofSeconds(10)).until(() -> waiting.getMetrics().getAvailableConcurrentCalls() == 0);
			context.getBean(RedisConcurrencyLimiter.class).destroy();
			// the place comes back: the waiter's next ask takes it, and the stopping
			// limiter
			// gives it back
			on(holding, holder::onComplete);
			assertThat(waiter).succeedsWithin(Duration.ofSeconds(10)).as("refused").isEqualTo(false);
			await().atMost(Duration.ofSeconds(10)).until(() -> inFlight(context, "reports") == 0);
		});
	}

	/**
	 * On a bulkhead of limit 1: B is let through uncounted while Redis does not answer
	 * ({@code failure-mode: allow}), then C takes the place, then B ends, each on the
	 * thread given: C's place stays taken, and a call D is refused while C runs.
	 */
	private void uncountedCallEndsWhileALeasedOneRuns(ApplicationContext context, Bulkhead bulkhead,
			ExecutorService takesB, ExecutorService takesC, ExecutorService endsB) throws Exception {
		redis.pause();
		try {
			on(takesB, bulkhead::acquirePermission);
		}
		finally {
			redis.resume();
		}
		// the acquisition Redis ran late is given back after it
		await().atMost(Duration.ofSeconds(10)).until(() -> inFlight(context, "reports") == 0);
		on(takesC, bulkhead::acquirePermission);
		assertThat(inFlight(context, "reports")).as("C's place").isEqualTo(1);
		on(endsB, bulkhead::onComplete);
		assertThat(inFlight(context, "reports")).as("C's place, once the uncounted B ended").isEqualTo(1);
		assertThat(on(thread(), bulkhead::tryAcquirePermission)).as("D while C runs").isFalse();
	}

	/**
	 * Takes and gives back a permit from Redis: connected and the scripts loaded, so that
	 * a slow first call on a busy machine is not taken for a Redis that does not answer
	 * (under {@code deny}, such a call throws).
	 */
	private static void warm(ApplicationContext context) {
		ConcurrencyLimiter limiter = context.getBean(ConcurrencyLimiter.class);
		await().atMost(Duration.ofSeconds(30))
			.ignoreException(ConcurrencyLimiterUnavailableException.class)
			.until(() -> {
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

	/**
	 * Redkit's limiter, with Redis frozen right after the first refusal it hands out.
	 */
	private record FreezingAfterARefusal(ConcurrencyLimiter delegate) implements ConcurrencyLimiter {

		@Override
		public Optional<ConcurrencyPermit> tryAcquire(String limitName, String key) {
			return frozenIfRefused(this.delegate.tryAcquire(limitName, key));
		}

		@Override
		public Optional<ConcurrencyPermit> tryAcquire(String limitName, ConcurrencyPolicy policy, String key) {
			return frozenIfRefused(this.delegate.tryAcquire(limitName, policy, key));
		}

		@Override
		public CompletableFuture<Optional<ConcurrencyPermit>> tryAcquireAsync(String limitName, String limitId,
				ConcurrencyPolicy policy, String key) {
			return this.delegate.tryAcquireAsync(limitName, limitId, policy, key);
		}

		@Override
		public Optional<ConcurrencyPolicy> policy(String limitName) {
			return this.delegate.policy(limitName);
		}

		private static Optional<ConcurrencyPermit> frozenIfRefused(Optional<ConcurrencyPermit> permit) {
			if (permit.isEmpty()) {
				redis.pause();
			}
			return permit;
		}

	}

}
