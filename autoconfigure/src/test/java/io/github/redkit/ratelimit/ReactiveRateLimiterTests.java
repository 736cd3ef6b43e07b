package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.internal.DefaultReactiveRateLimiter;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.NonBlockingThreads;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The reactive face decides like the blocking one, on subscription, and never blocks a
 * non-blocking thread (BlockHound watches).
 */
@Tag("tests-apart")
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
class ReactiveRateLimiterTests {

	@Parameter
	RedisTopology topology;

	private RedisRateLimiter limiter;

	private ReactiveRateLimiter reactive;

	private final String id = "reactive-" + UUID.randomUUID();

	private final RateLimitPolicy threePerHour = RateLimitPolicy
		.slidingWindow(RateLimitWindow.of(3, Duration.ofHours(1)));

	@BeforeAll
	static void watchForBlocking() {
		NonBlockingThreads.watch();
	}

	@BeforeEach
	void createLimiter() {
		RedisScriptRunner runner = new RedisScriptRunner(this.topology.connectionFactory());
		this.limiter = new RedisRateLimiter(runner, new RedisKeyspace("rrl-test"), Map.of("api", this.threePerHour),
				new RateLimitSettings(LimitFailureMode.ALLOW, Duration.ofSeconds(5), Duration.ZERO), RedkitMetrics.NONE,
				RedkitObservations.NONE);
		this.reactive = new DefaultReactiveRateLimiter(this.limiter);
		// the first connection is made off the caller's thread; make it before the checks
		this.limiter.tryAcquire("api", "warm-up");
	}

	/** Subscribes on a non-blocking thread and continues on one. */
	private static <T> Mono<T> onEventLoop(Mono<T> decision) {
		return decision.subscribeOn(Schedulers.parallel()).publishOn(Schedulers.parallel());
	}

	@Test
	void decidesOnSubscriptionNotOnAssembly() {
		Mono<RateLimitDecision> assembled = this.reactive.tryAcquire("api", this.id);
		assertThat(onEventLoop(this.reactive.tryAcquire("api", this.id)).block().remaining()).isEqualTo(2);
		assertThat(onEventLoop(assembled).block().remaining()).as("counted when subscribed").isEqualTo(1);
		assertThat(onEventLoop(assembled).block().remaining()).as("each subscription decides").isZero();
		assertThat(onEventLoop(assembled).block().allowed()).isFalse();
	}

	@Test
	void manyConcurrentSubscribersOnNonBlockingThreadsGetExactlyTheLimit() {
		RateLimitPolicy fifty = RateLimitPolicy.slidingWindow(RateLimitWindow.of(50, Duration.ofHours(1)));
		List<RateLimitDecision> decisions = Flux.range(0, 200)
			.flatMap((i) -> this.reactive.tryAcquire(this.id, fifty, List.of("crowd"), 1)
				.subscribeOn(Schedulers.parallel()), 64)
			.publishOn(Schedulers.parallel())
			.collectList()
			.block(Duration.ofSeconds(30));
		assertThat(decisions).hasSize(200);
		assertThat(decisions.stream().filter(RateLimitDecision::allowed)).hasSize(50);
	}

	@Test
	void identifiersOnSeveralSlotsAreDecidedTogetherAndARefusalKeepsNothing() {
		// on a cluster, three identifiers are (almost surely) on more than one slot
		List<String> keys = List.of("a-" + this.id, "b-" + this.id, "c-" + this.id);
		RateLimitPolicy two = RateLimitPolicy.slidingWindow(RateLimitWindow.of(2, Duration.ofHours(1)));
		for (int i = 0; i < 2; i++) {
			assertThat(onEventLoop(this.reactive.tryAcquire(this.id, two, List.of(keys.get(2)), 1)).block().allowed())
				.isTrue();
		}
		assertThat(onEventLoop(this.reactive.tryAcquire(this.id, two, keys, 1)).block().allowed()).isFalse();
		// what the other slots took is given back (asynchronously on a cluster); a
		// refused attempt here takes nothing either
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(
					onEventLoop(this.reactive.tryAcquire(this.id, two, keys.subList(0, 2), 2)).block().allowed())
				.isTrue());
	}

	@Test
	void manyRefusalsOnSeveralSlotsGiveBackWithoutBlocking() {
		// a give-back's key once came from UUID.randomUUID(), whose SecureRandom reads
		// /dev/urandom now and then: on an event loop, that is a blocking call
		List<String> keys = List.of("a-" + this.id, "b-" + this.id, "c-" + this.id);
		RateLimitPolicy one = RateLimitPolicy.slidingWindow(RateLimitWindow.of(1, Duration.ofHours(1)));
		assertThat(onEventLoop(this.reactive.tryAcquire(this.id, one, List.of(keys.get(2)), 1)).block().allowed())
			.isTrue();
		List<RateLimitDecision> refusals = Flux.range(0, 100)
			.flatMap((i) -> this.reactive.tryAcquire(this.id, one, keys, 1).subscribeOn(Schedulers.parallel()), 8)
			.collectList()
			.block(Duration.ofSeconds(30));
		assertThat(refusals).hasSize(100).noneMatch(RateLimitDecision::allowed);
	}

}
