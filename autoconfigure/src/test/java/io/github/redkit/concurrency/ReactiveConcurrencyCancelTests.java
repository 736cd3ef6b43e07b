package io.github.redkit.concurrency;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.concurrency.ConcurrencyLimitAutoConfiguration;
import io.github.redkit.concurrency.internal.RedisConcurrencyLimiter;
import io.github.redkit.core.ClientPause;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A caller that gives up while its permit is being taken (a timeout, a cancelled
 * subscription or future) while Redis runs {@code concurrency_acquire} anyway: the permit
 * Redis grants is given back, so nothing stays held and the next call gets the place.
 * {@code CLIENT PAUSE} holds the script on the server to open the window.
 */
@Tag("tests-apart")
class ReactiveConcurrencyCancelTests {

	private static final Duration PAUSE = Duration.ofMillis(1500);

	@PrivateRedis
	private static RedisServer redis;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedkitAutoConfiguration.class, ConcurrencyLimitAutoConfiguration.class))
		.withPropertyValues("redkit.concurrency-limit.timeout=10s", "redkit.concurrency-limit.limits.one.limit=1",
				"spring.data.redis.timeout=10s")
		.withUserConfiguration(Services.class);

	@Test
	void aMonoThatTimesOutWhileItsPermitIsTakenGivesItBack() {
		cancelledDuringAcquire((service) -> StepVerifier.create(service.mono("k").timeout(Duration.ofMillis(200)))
			.expectError(TimeoutException.class)
			.verify(Duration.ofSeconds(10)));
	}

	@Test
	void aFluxCancelledWhileItsPermitIsTakenGivesItBack() {
		cancelledDuringAcquire((service) -> StepVerifier.create(service.flux("k"))
			.expectSubscription()
			.thenCancel()
			.verify(Duration.ofSeconds(10)));
	}

	@Test
	void aCancelledCompletableFutureGivesBackThePermitTakenForIt() {
		cancelledDuringAcquire((service) -> {
			CompletableFuture<String> future = service.future("k");
			assertThat(future.cancel(true)).isTrue();
		});
	}

	@Test
	void aCancelledTryAcquireAsyncGivesBackThePermitTakenForIt() {
		cancelledDuringAcquire((service) -> {
			CompletableFuture<?> permit = service.limiter().tryAcquireAsync("one", "k");
			assertThat(permit.cancel(true)).isTrue();
		});
	}

	/**
	 * A subscriber's {@code timeout} that fires before the refusal arrives: the refusal
	 * has nobody left to reach and is dropped quietly, not reported to Reactor's
	 * {@code onErrorDropped} (whose default logs it at ERROR).
	 */
	@Test
	void aRefusalThatArrivesAfterTheSubscriberTimedOutIsDroppedQuietly() {
		List<Throwable> dropped = new CopyOnWriteArrayList<>();
		Hooks.onErrorDropped(dropped::add);
		try {
			this.runner.withPropertyValues(redis.springProperties())
				.withPropertyValues("redkit.key-prefix=rcancel-" + UUID.randomUUID())
				.run((context) -> {
					LimitedService service = context.getBean(LimitedService.class);
					assertThat(service.mono("warm").block(Duration.ofSeconds(10))).isEqualTo("ok");
					Optional<ConcurrencyPermit> held = service.limiter().tryAcquire("one", "k");
					assertThat(held).isPresent();
					ClientPause pause = ClientPause.start(redis, PAUSE);
					StepVerifier.create(service.mono("k").timeout(Duration.ofMillis(200)))
						.expectError(TimeoutException.class)
						.verify(Duration.ofSeconds(10));
					pause.awaitEnd();
					// answered after the refusal, on the same connection: the refusal has
					// been handled by then
					assertThat(service.limiter().tryAcquire("one", "k")).isEmpty();
					await().during(Duration.ofMillis(200))
						.atMost(Duration.ofSeconds(2))
						.untilAsserted(() -> assertThat(dropped).as("errors dropped").isEmpty());
					held.get().close();
				});
		}
		finally {
			Hooks.resetOnErrorDropped();
		}
		assertThat(dropped).isEmpty();
	}

	private void cancelledDuringAcquire(Consumer<LimitedService> cancel) {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("redkit.key-prefix=rcancel-" + UUID.randomUUID())
			.run((context) -> {
				LimitedService service = context.getBean(LimitedService.class);
				String key = ((RedisConcurrencyLimiter) context.getBean(ConcurrencyLimiter.class)).redisKey("one", "k");
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				// connected before the pause, so that only the script waits
				assertThat(service.mono("warm").block(Duration.ofSeconds(10))).isEqualTo("ok");
				ClientPause pause = ClientPause.start(redis, PAUSE);
				cancel.accept(service);
				pause.awaitEnd();
				await("the permit Redis granted after the cancel is given back").atMost(Duration.ofSeconds(10))
					.pollInterval(Duration.ofMillis(50))
					.until(() -> template.opsForZSet().zCard(key) == 0);
				assertThat(service.mono("k").block(Duration.ofSeconds(10))).as("the next call gets the place")
					.isEqualTo("ok");
				assertThat(template.hasKey(key)).as("and gives it back").isFalse();
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		LimitedService limitedService(ConcurrencyLimiter limiter) {
			return new LimitedService(limiter);
		}

	}

	static class LimitedService {

		private final ConcurrencyLimiter limiter;

		LimitedService(ConcurrencyLimiter limiter) {
			this.limiter = limiter;
		}

		ConcurrencyLimiter limiter() {
			return this.limiter;
		}

		@ConcurrencyLimited(value = "one", key = "#key")
		Mono<String> mono(String key) {
			return Mono.just("ok");
		}

		@ConcurrencyLimited(value = "one", key = "#key")
		Flux<String> flux(String key) {
			return Flux.just("a", "b");
		}

		@ConcurrencyLimited(value = "one", key = "#key")
		CompletableFuture<String> future(String key) {
			return CompletableFuture.completedFuture("ok");
		}

	}

}
