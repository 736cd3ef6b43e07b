package io.github.redkit.idempotency;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.idempotency.IdempotencyAutoConfiguration;
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
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code @IdempotentStep} on {@code Mono}, {@code Flux} and {@code CompletableFuture}:
 * decided on subscription, the first run recorded and replayed without invoking the
 * method again, abandoned on error, on cancellation and beyond the Flux limit; nothing
 * blocks a non-blocking thread (BlockHound watches).
 */
@Tag("tests-apart")
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
class ReactiveIdempotentStepTests {

	private static final Map<RedisTopology, ConfigurableApplicationContext> contexts = new EnumMap<>(
			RedisTopology.class);

	@Parameter
	RedisTopology topology;

	private Payments payments;

	private IdempotentSteps steps;

	private String order;

	@BeforeAll
	static void watchForBlocking() {
		NonBlockingThreads.watch();
	}

	@BeforeEach
	void setUp() {
		ConfigurableApplicationContext context = context(this.topology);
		this.payments = context.getBean(Payments.class);
		this.payments.reset();
		this.steps = context.getBean(IdempotentSteps.class);
		this.order = "order-" + UUID.randomUUID();
		// the first connection is made off the caller's thread; make it before the checks
		this.steps.recordedSteps("warm-up");
	}

	private static synchronized ConfigurableApplicationContext context(RedisTopology topology) {
		return contexts.computeIfAbsent(topology, (key) -> {
			ConfigurableApplicationContext context = new SpringApplicationBuilder(Services.class)
				.web(WebApplicationType.NONE)
				.properties(topology.springProperties())
				.properties("redkit.key-prefix=rstep-" + UUID.randomUUID(), "redkit.idempotency.timeout=5s",
						"redkit.idempotency.max-flux-elements=5", "spring.main.banner-mode=off")
				.run();
			Runtime.getRuntime().addShutdownHook(new Thread(context::close));
			return context;
		});
	}

	private static <T> Mono<T> onEventLoop(Mono<T> call) {
		return call.subscribeOn(Schedulers.parallel());
	}

	private static <T> Flux<T> onEventLoop(Flux<T> call) {
		return call.subscribeOn(Schedulers.parallel());
	}

	@Test
	void theFirstSubscriptionRunsAndRecordsAndTheNextReplaysWithoutInvokingTheMethod() {
		Mono<Receipt> first = this.payments.charge(this.order, Mono.just(new Receipt(this.order, 100)));
		assertThat(this.payments.calls()).as("assembly runs nothing").isZero();
		StepVerifier.create(onEventLoop(first)).expectNext(new Receipt(this.order, 100)).verifyComplete();
		StepVerifier.create(onEventLoop(this.payments.charge(this.order, Mono.just(new Receipt(this.order, 999)))))
			.expectNext(new Receipt(this.order, 100))
			.verifyComplete();
		StepVerifier.create(onEventLoop(first)).expectNext(new Receipt(this.order, 100)).verifyComplete();
		assertThat(this.payments.calls()).isOne();
		assertThat(this.steps.recordedSteps(this.order)).containsExactly("charge");
	}

	@Test
	void anEmptyMonoIsRecordedAndReplayedEmpty() {
		StepVerifier.create(onEventLoop(this.payments.note(this.order))).verifyComplete();
		StepVerifier.create(onEventLoop(this.payments.note(this.order))).verifyComplete();
		assertThat(this.payments.calls()).isOne();
	}

	@Test
	void aFluxIsRecordedAndReplayedInOrder() {
		StepVerifier.create(onEventLoop(this.payments.lines(this.order, Flux.just("a", "b", "c"))))
			.expectNext("a", "b", "c")
			.verifyComplete();
		StepVerifier.create(onEventLoop(this.payments.lines(this.order, Flux.just("x"))))
			.expectNext("a", "b", "c")
			.verifyComplete();
		assertThat(this.payments.calls()).isOne();
		// another operation: a step with no 'after' is an operation's first
		String other = this.order + "-receipts";
		Flux<Receipt> receipts = Flux.just(new Receipt(other, 1), new Receipt(other, 2));
		StepVerifier.create(onEventLoop(this.payments.receipts(other, receipts)))
			.expectNext(new Receipt(other, 1), new Receipt(other, 2))
			.verifyComplete();
		StepVerifier.create(onEventLoop(this.payments.receipts(other, Flux.empty())))
			.as("replayed as the element type")
			.expectNext(new Receipt(other, 1), new Receipt(other, 2))
			.verifyComplete();
		assertThat(this.payments.calls()).isEqualTo(2);
	}

	@Test
	void anErrorAbandonsTheStepSoThatTheNextSubscriptionRunsIt() {
		StepVerifier
			.create(onEventLoop(this.payments.charge(this.order, Mono.error(new IllegalStateException("declined")))))
			.expectErrorMessage("declined")
			.verify(Duration.ofSeconds(10));
		assertThat(this.steps.recordedSteps(this.order)).isEmpty();
		StepVerifier.create(onEventLoop(this.payments.charge(this.order, Mono.just(new Receipt(this.order, 5)))))
			.expectNext(new Receipt(this.order, 5))
			.verifyComplete();
		assertThat(this.payments.calls()).isEqualTo(2);
	}

	@Test
	void aCancellationBeforeTheResultAbandonsTheStep() {
		AtomicBoolean cancelledUpstream = new AtomicBoolean();
		Mono<Receipt> never = Sinks.<Receipt>one().asMono().doOnCancel(() -> cancelledUpstream.set(true));
		Disposable running = onEventLoop(this.payments.charge(this.order, never)).subscribe();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.payments.calls() == 1);
		StepVerifier.create(onEventLoop(this.payments.charge(this.order, Mono.just(new Receipt(this.order, 1)))))
			.as("held while it runs")
			.expectError(StepInProgressException.class)
			.verify(Duration.ofSeconds(10));
		running.dispose();
		assertThat(cancelledUpstream).as("the method's publisher is cancelled").isTrue();
		// the lease is 30s: only the abandonment lets the next subscription run it now
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> StepVerifier
				.create(onEventLoop(this.payments.charge(this.order, Mono.just(new Receipt(this.order, 2)))))
				.expectNext(new Receipt(this.order, 2))
				.verifyComplete());
		assertThat(this.payments.calls()).isEqualTo(2);
	}

	@Test
	void aFluxBeyondTheLimitFailsAndRecordsNothing() {
		AtomicInteger emitted = new AtomicInteger();
		Flux<String> tooMany = Flux.range(0, 1000)
			.map((i) -> "line-" + i)
			.doOnNext((line) -> emitted.incrementAndGet());
		StepVerifier.create(onEventLoop(this.payments.lines(this.order, tooMany)))
			.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOf(StepResultTooLargeException.class)
				.hasMessageContaining("more than 5 elements")
				.hasMessageContaining("redkit.idempotency.max-flux-elements"))
			.verify(Duration.ofSeconds(10));
		assertThat(emitted).as("stopped after the limit").hasValue(6);
		assertThat(this.steps.recordedSteps(this.order)).isEmpty();
		StepVerifier.create(onEventLoop(this.payments.lines(this.order, Flux.just("a", "b", "c", "d", "e"))))
			.expectNext("a", "b", "c", "d", "e")
			.verifyComplete();
		assertThat(this.steps.recordedSteps(this.order)).containsExactly("lines");
	}

	@Test
	void aCompletableFutureIsDecidedWhenCalledAndReplayed() {
		AtomicInteger started = new AtomicInteger();
		Supplier<CompletableFuture<Integer>> work = () -> CompletableFuture.completedFuture(started.incrementAndGet());
		Mono<Integer> first = Mono.fromCallable(() -> this.payments.refund(this.order, work))
			.subscribeOn(Schedulers.parallel())
			.flatMap(Mono::fromFuture);
		assertThat(first.block(Duration.ofSeconds(10))).isEqualTo(1);
		assertThat(first.block(Duration.ofSeconds(10))).as("replayed").isEqualTo(1);
		assertThat(started).hasValue(1);
		assertThat(this.payments.calls()).isOne();
	}

	@Test
	void aStepOutOfOrderIsAnError() {
		StepVerifier.create(onEventLoop(this.payments.ship(this.order)))
			.expectError(StepOutOfOrderException.class)
			.verify(Duration.ofSeconds(10));
		assertThat(this.payments.calls()).isZero();
	}

	@Test
	void concurrentSubscriptionsOfOneStepRunItOnce() {
		Mono<Receipt> slow = Mono.delay(Duration.ofMillis(300)).map((tick) -> new Receipt(this.order, 7));
		List<Object> outcomes = Flux.range(0, 16)
			.flatMap((i) -> onEventLoop(this.payments.charge(this.order, slow)).<Object>map((receipt) -> receipt)
				.onErrorResume(StepInProgressException.class, Mono::just))
			.collectList()
			.block(Duration.ofSeconds(30));
		assertThat(this.payments.calls()).isOne();
		assertThat(outcomes).hasSize(16);
		assertThat(outcomes).filteredOn(new Receipt(this.order, 7)::equals).isNotEmpty();
		assertThat(outcomes)
			.allSatisfy((outcome) -> assertThat(outcome).isInstanceOfAny(Receipt.class, StepInProgressException.class));
	}

	record Receipt(String order, long amount) {

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
			IdempotencyAutoConfiguration.class, AopAutoConfiguration.class })
	static class Services {

		@Bean
		Payments payments() {
			return new Payments();
		}

	}

	static class Payments {

		private final AtomicInteger calls = new AtomicInteger();

		void reset() {
			this.calls.set(0);
		}

		int calls() {
			return this.calls.get();
		}

		@IdempotentStep(operation = "#order", step = "charge")
		Mono<Receipt> charge(String order, Mono<Receipt> work) {
			this.calls.incrementAndGet();
			return work;
		}

		@IdempotentStep(operation = "#order", step = "ship", after = "charge")
		Mono<String> ship(String order) {
			this.calls.incrementAndGet();
			return Mono.just("shipped");
		}

		@IdempotentStep(operation = "#order", step = "note")
		Mono<Void> note(String order) {
			this.calls.incrementAndGet();
			return Mono.empty();
		}

		@IdempotentStep(operation = "#order", step = "lines")
		Flux<String> lines(String order, Flux<String> work) {
			this.calls.incrementAndGet();
			return work;
		}

		@IdempotentStep(operation = "#order", step = "receipts")
		Flux<Receipt> receipts(String order, Flux<Receipt> work) {
			this.calls.incrementAndGet();
			return work;
		}

		@IdempotentStep(operation = "#order", step = "refund")
		CompletableFuture<Integer> refund(String order, Supplier<CompletableFuture<Integer>> work) {
			this.calls.incrementAndGet();
			return work.get();
		}

	}

}
