package io.github.redkit.lock;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.testsupport.LockRecords;
import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.core.ThreadDumpOnFailure;
import io.github.redkit.lock.internal.RedisDistributedLocks;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.NonBlockingThreads;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.BeforeAll;
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
import static org.awaitility.Awaitility.await;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * {@code @DistributedLock} on {@code Mono}, {@code Flux} and {@code CompletableFuture}:
 * the lock is taken on subscription, waited for without blocking (BlockHound watches),
 * held until the result completes, fails or is cancelled, then released.
 */
@Tag("tests-apart")
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
@ExtendWith(ThreadDumpOnFailure.class)
class ReactiveDistributedLockTests {

	@Parameter
	RedisTopology topology;

	@BeforeAll
	static void watchForBlocking() {
		NonBlockingThreads.watch();
		// a wedged connection fails the test instead of hanging the build
		StepVerifier.setDefaultTimeout(Duration.ofSeconds(60));
	}

	private ApplicationContextRunner runner() {
		ApplicationContextRunner runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
					RedkitAutoConfiguration.class, LockAutoConfiguration.class))
			.withPropertyValues(this.topology.springProperties())
			.withPropertyValues("redkit.key-prefix=rlock-" + UUID.randomUUID(), "redkit.lock.retry-interval=1s")
			.withUserConfiguration(Services.class);
		// every command borrows a connection of its own: a release and the next acquire
		// travel side by side, not one after the other on a shared connection
		return (this.topology != RedisTopology.POOLED) ? runner
				: runner.withPropertyValues("spring.data.redis.lettuce.pool.enabled=true")
					.withBean(UnsharedConnections.class, UnsharedConnections::new);
	}

	@Test
	void aMonoHoldsTheLockFromSubscriptionUntilItEnds() {
		runner().run((context) -> {
			Settlement settlement = context.getBean(Settlement.class);
			String lockKey = context.getBean(RedisDistributedLocks.class).redisKeys("day-1").get(0);
			StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
			Sinks.One<String> work = Sinks.one();
			Mono<String> assembled = settlement.settle("day-1", work.asMono());
			assertThat(settlement.calls()).as("assembly takes nothing").isZero();
			assertThat(LockRecords.held(redis, lockKey)).isFalse();
			StepVerifier.create(assembled.subscribeOn(Schedulers.parallel()))
				.then(() -> await().atMost(Duration.ofSeconds(10)).until(() -> settlement.calls() == 1))
				.then(() -> assertThat(LockRecords.held(redis, lockKey)).as("held while the mono runs").isTrue())
				.then(() -> StepVerifier
					.create(settlement.settle("day-1", Mono.just("second")).subscribeOn(Schedulers.parallel()))
					.expectError(LockNotAcquiredException.class)
					.verify(Duration.ofSeconds(10)))
				.then(() -> work.tryEmitValue("settled"))
				.expectNext("settled")
				.verifyComplete();
			assertThat(LockRecords.held(redis, lockKey)).as("released on completion").isFalse();
			StepVerifier
				.create(settlement.settle("day-1", Mono.error(new IllegalStateException("boom")))
					.subscribeOn(Schedulers.parallel()))
				.expectError(IllegalStateException.class)
				.verify(Duration.ofSeconds(10));
			assertThat(LockRecords.held(redis, lockKey)).as("released on error").isFalse();
			Disposable cancelled = settlement.settle("day-1", Mono.never())
				.subscribeOn(Schedulers.parallel())
				.subscribe();
			await().atMost(Duration.ofSeconds(10)).until(() -> LockRecords.held(redis, lockKey));
			cancelled.dispose();
			await("released on cancellation").atMost(Duration.ofSeconds(10))
				.until(() -> !LockRecords.held(redis, lockKey));
		});
	}

	@Test
	void aMonoReleasesItsLockBeforeItsCallerGetsTheValue() {
		runner().run((context) -> {
			Settlement settlement = context.getBean(Settlement.class);
			for (int i = 0; i < 500; i++) {
				// the next call, made once the value is here, finds the lock free (no
				// wait)
				assertThat(settlement.settle("x", Mono.just("ok")).block(Duration.ofSeconds(10))).as("call %d", i)
					.isEqualTo("ok");
			}
		});
	}

	@Test
	void aCompletableFutureReleasesItsLockBeforeItCompletes() {
		runner().run((context) -> {
			Settlement settlement = context.getBean(Settlement.class);
			for (int i = 0; i < 500; i++) {
				assertThat(settlement.report("x", CompletableFuture.completedFuture("ok"))).as("call %d", i)
					.succeedsWithin(Duration.ofSeconds(10))
					.isEqualTo("ok");
			}
		});
	}

	@Test
	void aFluxReleasesItsLockBeforeItCompletes() {
		runner().run((context) -> {
			Settlement settlement = context.getBean(Settlement.class);
			for (int i = 0; i < 500; i++) {
				assertThat(settlement.stream("x", Flux.just("a", "b")).collectList().block(Duration.ofSeconds(10)))
					.as("call %d", i)
					.containsExactly("a", "b");
			}
		});
	}

	@Test
	void aWaitingMonoIsHandedTheLockOnRelease() {
		runner().run((context) -> {
			Settlement settlement = context.getBean(Settlement.class);
			Sinks.One<String> first = Sinks.one();
			CompletableFuture<String> holding = settlement.waitFor("day-2", first.asMono())
				.subscribeOn(Schedulers.parallel())
				.toFuture();
			await().atMost(Duration.ofSeconds(10)).until(() -> settlement.calls() == 1);
			CompletableFuture<String> waiting = settlement.waitFor("day-2", Mono.fromSupplier(() -> "second"))
				.subscribeOn(Schedulers.parallel())
				.toFuture();
			RedisDistributedLocks locks = context.getBean(RedisDistributedLocks.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> locks.waitingThreads("day-2") == 1);
			assertThat(settlement.calls()).as("the waiter's method is not invoked before it holds the lock")
				.isEqualTo(1);
			first.tryEmitValue("first");
			assertThat(holding).succeedsWithin(Duration.ofSeconds(10)).isEqualTo("first");
			assertThat(waiting).succeedsWithin(Duration.ofSeconds(10)).isEqualTo("second");
		});
	}

	@Test
	void aFluxHoldsTheLockUntilItsLastElementAndSeesItsHandle() {
		runner().run((context) -> {
			Settlement settlement = context.getBean(Settlement.class);
			StepVerifier.create(settlement.rows("day-3").subscribeOn(Schedulers.parallel()))
				.expectNext("day-3", "row-1", "row-2")
				.verifyComplete();
			Sinks.Many<String> rows = Sinks.many().unicast().onBackpressureBuffer();
			StepVerifier.create(settlement.stream("day-4", rows.asFlux()).subscribeOn(Schedulers.parallel()))
				.then(() -> rows.tryEmitNext("a"))
				.expectNext("a")
				.then(() -> StepVerifier
					.create(settlement.stream("day-4", Flux.just("b")).subscribeOn(Schedulers.parallel()))
					.expectError(LockNotAcquiredException.class)
					.verify(Duration.ofSeconds(10)))
				.then(rows::tryEmitComplete)
				.verifyComplete();
			StepVerifier.create(settlement.stream("day-4", Flux.just("c")).subscribeOn(Schedulers.parallel()))
				.expectNext("c")
				.verifyComplete();
		});
	}

	@Test
	void aCompletableFutureHoldsTheLockUntilItCompletes() {
		runner().run((context) -> {
			Settlement settlement = context.getBean(Settlement.class);
			CompletableFuture<String> slow = new CompletableFuture<>();
			CompletableFuture<String> running = settlement.report("r1", slow);
			await().atMost(Duration.ofSeconds(10)).until(() -> settlement.calls() == 1);
			assertThat(settlement.report("r1", CompletableFuture.completedFuture("x")))
				.failsWithin(Duration.ofSeconds(10))
				.withThrowableOfType(Exception.class)
				.withCauseInstanceOf(LockNotAcquiredException.class);
			slow.complete("slow");
			assertThat(running).succeedsWithin(Duration.ofSeconds(10)).isEqualTo("slow");
			assertThat(settlement.report("r1", CompletableFuture.completedFuture("again")))
				.succeedsWithin(Duration.ofSeconds(10))
				.isEqualTo("again");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		Settlement settlement() {
			return new Settlement();
		}

	}

	/**
	 * Every call borrows a connection from the pool, none shared.
	 */
	static final class UnsharedConnections implements BeanPostProcessor {

		@Override
		public Object postProcessBeforeInitialization(Object bean, String beanName) {
			if (bean instanceof LettuceConnectionFactory factory) {
				factory.setShareNativeConnection(false);
			}
			return bean;
		}

	}

	static class Settlement {

		private final AtomicInteger calls = new AtomicInteger();

		int calls() {
			return this.calls.get();
		}

		@DistributedLock(key = "#day")
		Mono<String> settle(String day, Mono<String> work) {
			this.calls.incrementAndGet();
			return work;
		}

		@DistributedLock(key = "#day", waitTime = "10s")
		Mono<String> waitFor(String day, Mono<String> work) {
			this.calls.incrementAndGet();
			return work;
		}

		@DistributedLock(key = "#day")
		Flux<String> rows(String day) {
			return ReactiveDistributedLocks.current()
				.flatMapMany((handle) -> Flux.fromIterable(List.of(handle.key(), "row-1", "row-2")));
		}

		@DistributedLock(key = "#day")
		Flux<String> stream(String day, Flux<String> rows) {
			return rows;
		}

		@DistributedLock(key = "#report")
		CompletableFuture<String> report(String report, CompletableFuture<String> work) {
			this.calls.incrementAndGet();
			return work;
		}

	}

}
