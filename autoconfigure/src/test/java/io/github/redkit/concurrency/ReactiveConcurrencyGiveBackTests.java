package io.github.redkit.concurrency;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.concurrency.ConcurrencyLimitAutoConfiguration;
import io.github.redkit.core.ClientPause;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * How the give-back of a {@code @ConcurrencyLimited} {@code Mono} method's permit reaches
 * its caller: a give-back Redis does not answer in time hands the value over on one of
 * Redkit's threads, not on the JDK's one timer thread, and a give-back that fails is
 * logged while the value still arrives. {@code CLIENT PAUSE} holds the release on the
 * server.
 */
@Tag("tests-apart")
@ExtendWith(OutputCaptureExtension.class)
class ReactiveConcurrencyGiveBackTests {

	private static final Duration PAUSE = Duration.ofMillis(1500);

	@PrivateRedis
	private static RedisServer redis;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedkitAutoConfiguration.class, ConcurrencyLimitAutoConfiguration.class))
		.withPropertyValues("redkit.concurrency-limit.timeout=300ms", "redkit.concurrency-limit.limits.one.limit=1",
				"spring.data.redis.timeout=10s")
		.withBean(LimitedService.class);

	@Test
	void aGiveBackThatTimesOutDoesNotHandTheValueToTheJdksTimerThread() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("redkit.key-prefix=rgiveback-" + UUID.randomUUID())
			.run((context) -> {
				LimitedService service = context.getBean(LimitedService.class);
				// connected before the pause, so that only the release waits
				assertThat(service.mono("warm", Mono.just("ok")).block(Duration.ofSeconds(10))).isEqualTo("ok");
				Sinks.One<String> work = Sinks.one();
				CompletableFuture<String> delivered = service.mono("k", work.asMono())
					.map((value) -> value + " on " + Thread.currentThread().getName())
					.toFuture();
				await().atMost(Duration.ofSeconds(10)).until(() -> service.calls() == 2);
				ClientPause pause = ClientPause.start(redis, PAUSE);
				work.tryEmitValue("x");
				assertThat(delivered).succeedsWithin(Duration.ofSeconds(10))
					.asString()
					.startsWith("x on ")
					.doesNotContain("CompletableFutureDelayScheduler");
				pause.awaitEnd();
			});
	}

	@Test
	void aFailedGiveBackIsLoggedAndTheValueStillArrives(CapturedOutput output) {
		this.runner.withPropertyValues(redis.springProperties())
			.withBean(ConcurrencyLimiter.class, FailingGiveBacks::new)
			.run((context) -> {
				LimitedService service = context.getBean(LimitedService.class);
				assertThat(service.mono("k", Mono.just("x")).block(Duration.ofSeconds(10))).isEqualTo("x");
				assertThat(output).contains("give-back refused");
			});
	}

	static class LimitedService {

		private final AtomicInteger calls = new AtomicInteger();

		int calls() {
			return this.calls.get();
		}

		@ConcurrencyLimited(value = "one", key = "#key")
		Mono<String> mono(String key, Mono<String> work) {
			this.calls.incrementAndGet();
			return work;
		}

	}

	/**
	 * An application's own limiter whose permits cannot be given back.
	 */
	static class FailingGiveBacks implements ConcurrencyLimiter {

		@Override
		public Optional<ConcurrencyPermit> tryAcquire(String limitName, String key) {
			return Optional.of(new FailingPermit(limitName));
		}

		@Override
		public Optional<ConcurrencyPermit> tryAcquire(String limitName, ConcurrencyPolicy policy, String key) {
			return Optional.of(new FailingPermit(limitName));
		}

		@Override
		public Optional<ConcurrencyPolicy> policy(String limitName) {
			return Optional.empty();
		}

	}

	record FailingPermit(String limitName) implements ConcurrencyPermit {

		@Override
		public boolean acquired() {
			return true;
		}

		@Override
		public long inFlight() {
			return 1;
		}

		@Override
		public long remaining() {
			return 0;
		}

		@Override
		public boolean isHeld() {
			return true;
		}

		@Override
		public void close() {
			throw new IllegalStateException("give-back refused");
		}

		@Override
		public CompletableFuture<Void> closeAsync() {
			return CompletableFuture.failedFuture(new IllegalStateException("give-back refused"));
		}

	}

}
