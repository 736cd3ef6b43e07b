package io.github.redkit.concurrency;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.concurrency.ConcurrencyLimitAutoConfiguration;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.NonBlockingThreads;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
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

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@code @ConcurrencyLimited} on {@code Mono}, {@code Flux} and
 * {@code CompletableFuture}: the permit is taken on subscription and held until the
 * publisher completes, fails or is cancelled, then given back; nothing blocks a
 * non-blocking thread (BlockHound watches).
 */
@Tag("tests-apart")
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
class ReactiveConcurrencyLimitedTests {

	@Parameter
	RedisTopology topology;

	private ApplicationContextRunner runner() {
		ApplicationContextRunner runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
					RedkitAutoConfiguration.class, ConcurrencyLimitAutoConfiguration.class))
			.withPropertyValues(this.topology.springProperties())
			.withPropertyValues("redkit.concurrency-limit.timeout=5s", "redkit.key-prefix=rconc-" + UUID.randomUUID(),
					"redkit.concurrency-limit.limits.exports.limit=2", "redkit.concurrency-limit.limits.single.limit=1")
			.withUserConfiguration(Services.class);
		// the topology's properties enable the pool; every command borrows a connection
		// of its own: a give-back and the next acquire travel side by side, not one
		// after the other on a shared connection
		return (this.topology != RedisTopology.POOLED) ? runner
				: runner.withBean(UnsharedConnections.class, UnsharedConnections::new);
	}

	@BeforeAll
	static void watchForBlocking() {
		NonBlockingThreads.watch();
	}

	@Test
	void aPermitIsHeldUntilTheMonoEndsAndGivenBackOnCompletionErrorAndCancellation() {
		runner().run((context) -> {
			ExportService service = context.getBean(ExportService.class);
			Sinks.One<String> first = Sinks.one();
			Sinks.One<String> second = Sinks.one();
			Mono<String> third = service.export("acme", Sinks.<String>one().asMono());
			assertThat(service.calls()).as("assembly takes nothing").isZero();
			CompletableFuture<String> running = service.export("acme", first.asMono())
				.subscribeOn(Schedulers.parallel())
				.toFuture();
			Disposable cancelled = service.export("acme", second.asMono())
				.subscribeOn(Schedulers.parallel())
				.subscribe();
			await().atMost(Duration.ofSeconds(10)).until(() -> service.calls() == 2);
			StepVerifier.create(third.subscribeOn(Schedulers.parallel()))
				.expectError(ConcurrencyLimitExceededException.class)
				.verify(Duration.ofSeconds(10));
			// completion gives the first permit back
			first.tryEmitValue("done");
			assertThat(running).succeedsWithin(Duration.ofSeconds(10)).isEqualTo("done");
			StepVerifier.create(service.export("acme", Mono.just("quick")).subscribeOn(Schedulers.parallel()))
				.expectNext("quick")
				.verifyComplete();
			// cancellation gives the second back: two fit again
			cancelled.dispose();
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(
						() -> StepVerifier
							.create(Flux
								.merge(service.export("acme", Mono.delay(Duration.ofMillis(200)).map((t) -> "a")),
										service.export("acme", Mono.delay(Duration.ofMillis(200)).map((t) -> "b")))
								.subscribeOn(Schedulers.parallel()))
							.expectNextCount(2)
							.verifyComplete());
			// an error gives it back too
			StepVerifier.create(service.export("acme", Mono.error(new IllegalStateException("boom"))))
				.expectError(IllegalStateException.class)
				.verify(Duration.ofSeconds(10));
			StepVerifier
				.create(Flux
					.merge(service.export("acme", Mono.delay(Duration.ofMillis(200)).map((t) -> "c")),
							service.export("acme", Mono.delay(Duration.ofMillis(200)).map((t) -> "d")))
					.subscribeOn(Schedulers.parallel()))
				.expectNextCount(2)
				.verifyComplete();
		});
	}

	@Test
	void aMonoGivesItsPermitBackBeforeItsCallerGetsTheValue() {
		runner().run((context) -> {
			ExportService service = context.getBean(ExportService.class);
			for (int i = 0; i < 500; i++) {
				// the next call, made once the value is here, finds the place free
				assertThat(service.single("k", Mono.just("ok")).block(Duration.ofSeconds(10))).as("call %d", i)
					.isEqualTo("ok");
			}
		});
	}

	@Test
	void aFluxHoldsItsPermitUntilItsLastElement() {
		runner().run((context) -> {
			ExportService service = context.getBean(ExportService.class);
			Sinks.Many<Integer> rows = Sinks.many().unicast().onBackpressureBuffer();
			StepVerifier.create(service.rows("tenant", rows.asFlux()).subscribeOn(Schedulers.parallel()))
				.then(() -> rows.tryEmitNext(1))
				.expectNext(1)
				.then(() -> StepVerifier.create(service.rows("tenant", Flux.just(9)).subscribeOn(Schedulers.parallel()))
					.expectError(ConcurrencyLimitExceededException.class)
					.verify(Duration.ofSeconds(10)))
				.then(rows::tryEmitComplete)
				.verifyComplete();
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> StepVerifier
					.create(service.rows("tenant", Flux.just(9)).subscribeOn(Schedulers.parallel()))
					.expectNext(9)
					.verifyComplete());
		});
	}

	@Test
	void aCompletableFutureHoldsItsPermitUntilItCompletes() {
		runner().run((context) -> {
			ExportService service = context.getBean(ExportService.class);
			CompletableFuture<String> slow = new CompletableFuture<>();
			CompletableFuture<String> running = service.report("r1", slow);
			// the permit is taken asynchronously: the method runs once it is held
			await().atMost(Duration.ofSeconds(10)).until(() -> service.calls() == 1);
			assertThatExceptionOfType(CompletionException.class)
				.isThrownBy(() -> service.report("r1", CompletableFuture.completedFuture("x")).join())
				.withCauseInstanceOf(ConcurrencyLimitExceededException.class);
			slow.complete("slow");
			assertThat(running).succeedsWithin(Duration.ofSeconds(10)).isEqualTo("slow");
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(service.report("r1", CompletableFuture.completedFuture("again")))
					.succeedsWithin(Duration.ofSeconds(5))
					.isEqualTo("again"));
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		ExportService exportService() {
			return new ExportService();
		}

	}

	static class ExportService {

		private final AtomicInteger calls = new AtomicInteger();

		int calls() {
			return this.calls.get();
		}

		@ConcurrencyLimited(value = "exports", key = "#tenant")
		Mono<String> export(String tenant, Mono<String> work) {
			this.calls.incrementAndGet();
			return work;
		}

		@ConcurrencyLimited(value = "single", key = "#key")
		Mono<String> single(String key, Mono<String> work) {
			return work;
		}

		@ConcurrencyLimited(limit = 1, key = "#tenant")
		Flux<Integer> rows(String tenant, Flux<Integer> rows) {
			return rows;
		}

		@ConcurrencyLimited(limit = 1, key = "#report")
		CompletableFuture<String> report(String report, CompletableFuture<String> work) {
			this.calls.incrementAndGet();
			return work;
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

}
