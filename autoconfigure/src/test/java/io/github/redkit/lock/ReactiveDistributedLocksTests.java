package io.github.redkit.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.testsupport.LockRecords;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.ThreadDumpOnFailure;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.lock.internal.DefaultReactiveDistributedLocks;
import io.github.redkit.lock.internal.RedisDistributedLocks;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.NonBlockingThreads;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The reactive face of the locks: acquired on subscription, waited for without blocking
 * (BlockHound watches), held until the publisher ends, with the same keys, fencing tokens
 * and scripts as the blocking face.
 */
@Tag("tests-apart")
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
@ExtendWith(ThreadDumpOnFailure.class)
class ReactiveDistributedLocksTests {

	@Parameter
	RedisTopology topology;

	private RedisDistributedLocks locks;

	private ReactiveDistributedLocks reactive;

	private StringRedisTemplate redis;

	private final String key = "reactive-" + UUID.randomUUID();

	@BeforeAll
	static void watchForBlocking() {
		NonBlockingThreads.watch();
		// a wedged connection fails the test instead of hanging the build
		StepVerifier.setDefaultTimeout(Duration.ofSeconds(60));
	}

	@BeforeEach
	void createLocks() {
		RedisScriptRunner runner = new RedisScriptRunner(this.topology.connectionFactory());
		this.redis = runner.template();
		this.locks = new RedisDistributedLocks(runner, new RedisKeyspace("rlock-test"),
				new LockSettings(Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofSeconds(1)),
				RedkitMetrics.NONE, RedkitObservations.NONE, List.of());
		this.reactive = new DefaultReactiveDistributedLocks(this.locks);
		// the first connection is made off the caller's thread; make it before the checks
		this.locks.tryLock("warm-up", Duration.ZERO, null).ifPresent(LockHandle::close);
	}

	@AfterEach
	void close() {
		this.locks.destroy();
	}

	private static <T> Flux<T> onEventLoop(Flux<T> work) {
		return work.subscribeOn(Schedulers.parallel()).publishOn(Schedulers.parallel());
	}

	@Test
	void acquiresOnSubscriptionAndSharesTheBlockingFacesKeysAndFencingTokens() {
		Mono<LockHandle> assembled = this.reactive.tryLock("orders", this.key, Duration.ZERO, null);
		assertThat(LockRecords.held(this.redis, this.locks.redisKeys(this.key).get(0))).as("nothing taken on assembly")
			.isFalse();
		LockHandle first = assembled.subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(10));
		assertThat(first).isNotNull();
		assertThat(this.locks.tryLock(this.key, Duration.ZERO, null)).as("the blocking face sees it taken").isEmpty();
		assertThat(assembled.subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(10)))
			.as("a second subscription tries again, and finds it taken")
			.isNull();
		assertThat(Mono.fromFuture(first::releaseAsync).subscribeOn(Schedulers.parallel()).block()).isTrue();
		LockHandle blocking = this.locks.tryLock(this.key, Duration.ZERO, null).orElseThrow();
		assertThat(blocking.fencingToken()).isGreaterThan(first.fencingToken());
		blocking.close();
	}

	@Test
	void aWaitingSubscriberIsWokenByTheReleaseWithoutBlockingAThread() {
		LockHandle holder = this.locks.tryLock(this.key, Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
		// the fallback retry is 1 s: a hand-over well under it came from the notification
		long start = System.nanoTime();
		Mono<LockHandle> waiting = this.reactive.tryLock("orders", this.key, Duration.ofSeconds(20), null)
			.subscribeOn(Schedulers.parallel());
		StepVerifier.create(waiting)
			.then(() -> await().atMost(Duration.ofSeconds(10)).until(() -> this.locks.waitingThreads(this.key) == 1))
			.then(holder::close)
			.assertNext((handle) -> {
				assertThat(handle.fencingToken()).isGreaterThan(holder.fencingToken());
				handle.close();
			})
			.verifyComplete();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.locks.waitingThreads(this.key) == 0);
	}

	@Test
	void aSubscriberThatWaitsInVainGetsNothingWhenTheWaitEnds() {
		LockHandle holder = this.locks.tryLock(this.key, Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
		StepVerifier
			.create(this.reactive.tryLock("orders", this.key, Duration.ofMillis(300), null)
				.subscribeOn(Schedulers.parallel()))
			.verifyComplete();
		StepVerifier
			.create(this.reactive.withLock(this.key, Duration.ofMillis(100), null, () -> Mono.just("never"))
				.subscribeOn(Schedulers.parallel()))
			.expectError(LockNotAcquiredException.class)
			.verify(Duration.ofSeconds(10));
		holder.close();
	}

	@Test
	void aCancelledWaitStopsWaitingAndNeverLeavesTheLockTaken() {
		LockHandle holder = this.locks.tryLock(this.key, Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
		AtomicInteger ran = new AtomicInteger();
		Disposable waiting = this.reactive
			.withLock(this.key, Duration.ofSeconds(20), null, () -> Mono.fromRunnable(ran::incrementAndGet))
			.subscribeOn(Schedulers.parallel())
			.subscribe();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.locks.waitingThreads(this.key) == 1);
		waiting.dispose();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.locks.waitingThreads(this.key) == 0);
		holder.close();
		// nobody took it for the cancelled waiter
		LockHandle next = this.locks.tryLock(this.key, Duration.ofSeconds(5), null).orElseThrow();
		next.close();
		assertThat(ran).hasValue(0);
	}

	@Test
	void withLockHoldsTheLockUntilTheFluxCompletesFailsOrIsCancelled() {
		String lockKey = this.locks.redisKeys(this.key).get(0);
		Sinks.Many<Integer> rows = Sinks.many().unicast().onBackpressureBuffer();
		StepVerifier.create(onEventLoop(this.reactive.withLock(this.key, Duration.ZERO, null, rows::asFlux)))
			.then(() -> rows.tryEmitNext(1))
			.expectNext(1)
			.then(() -> assertThat(LockRecords.held(this.redis, lockKey)).as("held while the flux runs").isTrue())
			.then(rows::tryEmitComplete)
			.verifyComplete();
		assertThat(LockRecords.held(this.redis, lockKey)).as("released on completion").isFalse();
		StepVerifier
			.create(onEventLoop(this.reactive.withLock(this.key, Duration.ZERO, null,
					() -> Flux.error(new IllegalStateException("boom")))))
			.expectError(IllegalStateException.class)
			.verify(Duration.ofSeconds(10));
		assertThat(LockRecords.held(this.redis, lockKey)).as("released on error").isFalse();
		Disposable cancelled = onEventLoop(this.reactive.withLock(this.key, Duration.ZERO, null, Flux::never))
			.subscribe();
		await().atMost(Duration.ofSeconds(10)).until(() -> LockRecords.held(this.redis, lockKey));
		cancelled.dispose();
		await("released on cancellation").atMost(Duration.ofSeconds(10))
			.until(() -> !LockRecords.held(this.redis, lockKey));
	}

	@Test
	void theHandleIsInTheSubscribersContextAndTheLockIsNotReentrant() {
		StepVerifier
			.create(onEventLoop(this.reactive.withLock(this.key, Duration.ZERO, null,
					() -> ReactiveDistributedLocks.current().map(LockHandle::key))))
			.expectNext(this.key)
			.verifyComplete();
		StepVerifier
			.create(onEventLoop(this.reactive.withLock(this.key, Duration.ZERO, null,
					() -> this.reactive.withLock(this.key, Duration.ofSeconds(5), null, () -> Mono.just(1)))))
			.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("not re-entrant"))
			.verify(Duration.ofSeconds(10));
		StepVerifier.create(ReactiveDistributedLocks.current()).verifyComplete();
	}

	@Test
	void aLeaseLostBeforeCompletionIsALockLostError() {
		StepVerifier
			.create(onEventLoop(this.reactive.withLock(this.key, Duration.ZERO, Duration.ofMillis(200),
					() -> Mono.delay(Duration.ofMillis(600)).then(Mono.just("late")))))
			.expectNext("late")
			.expectError(LockLostException.class)
			.verify(Duration.ofSeconds(10));
	}

	@Test
	void sixtyFourSubscribersOnNonBlockingThreadsTakeTurnsWithIncreasingFencingTokens() {
		String counter = "rlock-test:counter:" + this.key;
		AtomicLong highestFence = new AtomicLong();
		List<Long> staleFences = new CopyOnWriteArrayList<>();
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		List<Mono<Long>> work = new ArrayList<>();
		for (int i = 0; i < 64; i++) {
			work.add(this.reactive.withLock(this.key, Duration.ofSeconds(60), Duration.ofSeconds(10),
					() -> ReactiveDistributedLocks.current().flatMap((handle) -> {
						if (inside.incrementAndGet() > 1) {
							overlaps.incrementAndGet();
						}
						long fence = handle.fencingToken();
						if (fence <= highestFence.getAndAccumulate(fence, Math::max)) {
							staleFences.add(fence);
						}
						// a read-modify-write that loses updates unless the lock excludes
						return Mono.fromCallable(() -> {
							String value = this.redis.opsForValue().get(counter);
							long next = ((value != null) ? Long.parseLong(value) : 0) + 1;
							this.redis.opsForValue().set(counter, Long.toString(next));
							return next;
						}).subscribeOn(Schedulers.boundedElastic()).doOnTerminate(inside::decrementAndGet);
					}))
				.single()
				.subscribeOn(Schedulers.parallel()));
		}
		Flux.merge(work).blockLast(Duration.ofSeconds(120));
		assertThat(overlaps).hasValue(0);
		assertThat(staleFences).isEmpty();
		assertThat(this.redis.opsForValue().get(counter)).isEqualTo("64");
		this.redis.delete(counter);
	}

	@Test
	void anUnreachableRedisFailsClosedAsOnTheBlockingFaceAndCountsTheSameMeters() {
		LettuceConnectionFactory unreachable = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", 1),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofMillis(500)).build());
		unreachable.afterPropertiesSet();
		unreachable.start();
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		RedisDistributedLocks locks = new RedisDistributedLocks(new RedisScriptRunner(unreachable),
				new RedisKeyspace("rlock-test"),
				new LockSettings(Duration.ofSeconds(30), Duration.ofMillis(500), Duration.ofSeconds(1)),
				new MicrometerRedkitMetrics(() -> registry), RedkitObservations.NONE, List.of());
		try {
			assertThatExceptionOfType(LockUnavailableException.class)
				.isThrownBy(() -> locks.tryLock("orders", this.key, Duration.ZERO, null));
			StepVerifier
				.create(new DefaultReactiveDistributedLocks(locks).tryLock("orders", this.key, Duration.ZERO, null)
					.subscribeOn(Schedulers.parallel()))
				.expectError(LockUnavailableException.class)
				.verify(Duration.ofSeconds(10));
			assertThat(registry.get("redkit.lock.acquire").tags("name", "orders", "outcome", "error").counter().count())
				.as("both faces count the failure alike")
				.isEqualTo(2.0);
		}
		finally {
			locks.destroy();
			unreachable.destroy();
		}
	}

}
