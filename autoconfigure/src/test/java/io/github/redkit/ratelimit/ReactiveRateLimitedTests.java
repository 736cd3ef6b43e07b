package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

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
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code @RateLimited} on methods returning {@code Mono}, {@code Flux} and
 * {@code CompletableFuture}: decided on subscription (at the call for a future, which is
 * already running), the method invoked only when allowed, and nothing blocks a
 * non-blocking thread (BlockHound watches).
 */
@Tag("tests-apart")
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
class ReactiveRateLimitedTests {

	@Parameter
	RedisTopology topology;

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
					RedkitAutoConfiguration.class, RateLimitAutoConfiguration.class))
			.withPropertyValues(this.topology.springProperties())
			.withPropertyValues("redkit.rate-limit.timeout=5s", "redkit.key-prefix=rrl-" + UUID.randomUUID(),
					"redkit.rate-limit.limits.search.windows[0].limit=2",
					"redkit.rate-limit.limits.search.windows[0].period=1h")
			.withUserConfiguration(Services.class);
	}

	@BeforeAll
	static void watchForBlocking() {
		NonBlockingThreads.watch();
	}

	@Test
	void aMonoIsDecidedWhenSubscribedAndEachSubscriptionCounts() {
		runner().run((context) -> {
			SearchService service = context.getBean(SearchService.class);
			Mono<String> first = service.search("alice");
			Mono<String> second = service.search("alice");
			assertThat(service.calls()).as("assembly neither decides nor runs the method").isEqualTo(0);
			StepVerifier.create(first.subscribeOn(Schedulers.parallel())).expectNext("found alice").verifyComplete();
			StepVerifier.create(second.subscribeOn(Schedulers.parallel())).expectNext("found alice").verifyComplete();
			StepVerifier.create(first.subscribeOn(Schedulers.parallel()))
				.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOf(RateLimitExceededException.class)
					.satisfies((refused) -> assertThat(((RateLimitExceededException) refused).getLimitName())
						.isEqualTo("search")))
				.verify(Duration.ofSeconds(10));
			assertThat(service.calls()).as("a refused subscription does not run the method").isEqualTo(2);
			// another identifier is counted apart
			StepVerifier.create(service.search("bob").subscribeOn(Schedulers.parallel()))
				.expectNext("found bob")
				.verifyComplete();
		});
	}

	@Test
	void aFluxEmitsEverythingWhenAllowedAndOnlyAnErrorWhenRefused() {
		runner().run((context) -> {
			SearchService service = context.getBean(SearchService.class);
			Flux<Integer> pages = service.pages("carol").subscribeOn(Schedulers.parallel());
			StepVerifier.create(pages).expectNext(1, 2, 3).verifyComplete();
			StepVerifier.create(pages).expectNext(1, 2, 3).verifyComplete();
			StepVerifier.create(pages).expectError(RateLimitExceededException.class).verify(Duration.ofSeconds(10));
			assertThat(service.calls()).isEqualTo(2);
		});
	}

	@Test
	void aCompletableFutureIsDecidedAtTheCallAndRefusedExceptionally() {
		runner().run((context) -> {
			SearchService service = context.getBean(SearchService.class);
			assertThat(service.lookup("dave").join()).isEqualTo("dave");
			assertThat(service.lookup("dave").join()).isEqualTo("dave");
			CompletableFuture<String> refused = service.lookup("dave");
			assertThatExceptionOfType(CompletionException.class).isThrownBy(refused::join)
				.withCauseInstanceOf(RateLimitExceededException.class);
			assertThat(service.calls()).isEqualTo(2);
		});
	}

	@Test
	void manyConcurrentSubscriptionsGetExactlyTheLimit() {
		runner().withPropertyValues("redkit.rate-limit.limits.search.windows[0].limit=25").run((context) -> {
			SearchService service = context.getBean(SearchService.class);
			List<Boolean> outcomes = Flux.range(0, 100)
				.flatMap((i) -> service.search("crowd")
					.subscribeOn(Schedulers.parallel())
					.map((found) -> true)
					.onErrorResume(RateLimitExceededException.class, (ex) -> Mono.just(false)), 32)
				.collectList()
				.block(Duration.ofSeconds(30));
			assertThat(outcomes.stream().filter(Boolean::booleanValue)).hasSize(25);
			assertThat(service.calls()).isEqualTo(25);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		SearchService searchService() {
			return new SearchService();
		}

	}

	static class SearchService {

		private final AtomicInteger calls = new AtomicInteger();

		int calls() {
			return this.calls.get();
		}

		@RateLimited(value = "search", key = "#user")
		Mono<String> search(String user) {
			this.calls.incrementAndGet();
			return Mono.just("found " + user);
		}

		@RateLimited(value = "search", key = "'pages:' + #user")
		Flux<Integer> pages(String user) {
			this.calls.incrementAndGet();
			return Flux.just(1, 2, 3);
		}

		@RateLimited(value = "search", key = "'lookup:' + #user")
		CompletableFuture<String> lookup(String user) {
			this.calls.incrementAndGet();
			return CompletableFuture.completedFuture(user);
		}

	}

}
