package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.NonBlockingThreads;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @RateLimited(settle = ..., countWhen = ...)} on {@code Mono}, {@code Flux} and
 * {@code CompletableFuture}: the estimate is taken on subscription, the call settled when
 * its publisher completes (a {@code Flux} on its last element) or fails, a cancelled call
 * keeps its estimate, and nothing blocks a non-blocking thread.
 */
@Tag("tests-apart")
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
class ReactiveRateLimitedSettleTests {

	@Parameter
	RedisTopology topology;

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
					RedkitAutoConfiguration.class, RateLimitAutoConfiguration.class))
			.withPropertyValues(this.topology.springProperties())
			.withPropertyValues("redkit.rate-limit.timeout=5s", "redkit.key-prefix=rsettle-" + UUID.randomUUID(),
					"redkit.rate-limit.limits.tokens.windows[0].limit=1000",
					"redkit.rate-limit.limits.tokens.windows[0].period=1h")
			.withUserConfiguration(Services.class);
	}

	@BeforeAll
	static void watchForBlocking() {
		NonBlockingThreads.watch();
	}

	@Test
	void aMonoAFluxAndAFutureAreChargedWhatTheyReallyUsed() {
		runner().run((context) -> {
			StreamingChat chat = context.getBean(StreamingChat.class);
			RateLimiter limiter = context.getBean(RateLimiter.class);
			StepVerifier.create(chat.complete("mono", 30).subscribeOn(Schedulers.parallel()))
				.expectNext(30)
				.verifyComplete();
			// the last chunk of a stream carries the usage
			StepVerifier.create(chat.stream("flux", 260).subscribeOn(Schedulers.parallel()))
				.expectNext(1, 2, 260)
				.verifyComplete();
			assertThat(chat.future("future", 7).join()).isEqualTo(7);
			awaitRemaining(limiter, "mono", 1000 - 30 - 1);
			awaitRemaining(limiter, "flux", 1000 - 260 - 1);
			awaitRemaining(limiter, "future", 1000 - 7 - 1);
		});
	}

	@Test
	void aFailedPublisherIsGivenBackWhenItDoesNotCountAndACancelledOneKeepsItsEstimate() {
		runner().run((context) -> {
			StreamingChat chat = context.getBean(StreamingChat.class);
			RateLimiter limiter = context.getBean(RateLimiter.class);
			StepVerifier.create(chat.failing("failed").subscribeOn(Schedulers.parallel()))
				.expectError(IllegalStateException.class)
				.verify(Duration.ofSeconds(10));
			StepVerifier.create(chat.stream("cancelled", 50).subscribeOn(Schedulers.parallel()))
				.expectNext(1)
				.thenCancel()
				.verify(Duration.ofSeconds(10));
			awaitRemaining(limiter, "failed", 1000 - 1);
			awaitRemaining(limiter, "cancelled", 1000 - 100 - 1);
		});
	}

	/** Settlements are sent when the publisher ends, not awaited by it. */
	private static void awaitRemaining(RateLimiter limiter, String key, long expected) {
		long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
		long seen;
		do {
			RateLimitReservation look = limiter.reserve("tokens", List.of(key), 1);
			seen = look.decision().remaining();
			look.settle(0);
		}
		while (seen != expected && System.nanoTime() < deadline);
		assertThat(seen).as(key).isEqualTo(expected);
	}

	static class Services {

		@Bean
		StreamingChat streamingChat() {
			return new StreamingChat();
		}

	}

	static class StreamingChat {

		@RateLimited(value = "tokens", key = "#tenant", cost = 100, settle = "#result")
		Mono<Integer> complete(String tenant, int tokens) {
			return Mono.just(tokens);
		}

		@RateLimited(value = "tokens", key = "#tenant", cost = 100, settle = "#result")
		Flux<Integer> stream(String tenant, int tokens) {
			return Flux.just(1, 2, tokens);
		}

		@RateLimited(value = "tokens", key = "#tenant", cost = 100, settle = "#result")
		CompletableFuture<Integer> future(String tenant, int tokens) {
			return CompletableFuture.completedFuture(tokens);
		}

		@RateLimited(value = "tokens", key = "#tenant", cost = 100, countWhen = "#exception == null")
		Mono<Integer> failing(String tenant) {
			return Mono.error(new IllegalStateException("the model failed"));
		}

	}

}
