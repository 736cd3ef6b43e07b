package io.github.redkit.idempotency;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Future;

import io.github.redkit.budget.Budgets;
import io.github.redkit.budget.Reservation;
import io.github.redkit.budget.SpendResult;
import io.github.redkit.core.KeyExpressionException;
import io.github.redkit.idempotency.Handlers.Receipt;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
class IdempotentStepInterceptorTests {

	@Parameter
	RedisTopology topology;

	private Handlers handlers;

	private AuctionService auctions;

	private Budgets budgets;

	private String key;

	@BeforeEach
	void setUp() {
		ConfigurableApplicationContext context = StepsApplication.context(this.topology);
		this.handlers = context.getBean(Handlers.class);
		this.handlers.reset(false, new CountDownLatch(0));
		this.auctions = context.getBean(AuctionService.class);
		this.budgets = context.getBean(Budgets.class);
		this.key = UUID.randomUUID().toString();
	}

	@Test
	void theSeedsTableThroughTheAnnotation() {
		this.auctions.useBudget("campaign:" + this.key);
		this.budgets.create(this.auctions.budget(), 1000);
		String a = this.key + ":a";
		assertThatExceptionOfType(StepOutOfOrderException.class).isThrownBy(() -> this.auctions.notice(a, 10))
			.withMessageContaining("'notice'")
			.withMessageContaining("recorded steps are []");
		Reservation bid = this.auctions.bid(a, 100);
		assertThat(bid.amount()).isEqualTo(100);
		assertThat(this.auctions.bid(a, 100)).isEqualTo(bid);
		assertThat(this.auctions.notice(a, 60)).isEqualTo(new SpendResult(true, 940));
		assertThat(this.auctions.notice(a, 60)).isEqualTo(new SpendResult(true, 940));
		assertThatExceptionOfType(StepOutOfOrderException.class).isThrownBy(() -> this.auctions.timeout(a))
			.withMessageContaining("[bid, notice]")
			.satisfies((ex) -> assertThat(ex.getRecordedSteps()).containsExactlyInAnyOrder("bid", "notice"));
		String b = this.key + ":b";
		this.auctions.bid(b, 100);
		this.auctions.timeout(b);
		this.auctions.timeout(b);
		assertThatExceptionOfType(StepOutOfOrderException.class).isThrownBy(() -> this.auctions.notice(b, 10));
		assertThat(this.budgets.remaining(this.auctions.budget())).isEqualTo(940);
	}

	@Test
	void aDuplicateReturnsTheFirstResultWithoutRunning() throws Exception {
		Receipt first = this.handlers.charge(this.key, 42);
		Receipt again = this.handlers.charge(this.key, 42);
		assertThat(again).isEqualTo(first);
		assertThat(this.handlers.runs()).hasValue(1);
		this.handlers.ping(this.key + ":ping");
		this.handlers.ping(this.key + ":ping");
		assertThat(this.handlers.runs()).hasValue(2);
	}

	@Test
	void aFailedRunIsRetried() throws Exception {
		this.handlers.fail(true);
		assertThatIllegalStateException().isThrownBy(() -> this.handlers.charge(this.key, 5))
			.withMessage("payment provider down");
		this.handlers.fail(false);
		assertThat(this.handlers.charge(this.key, 5)).isEqualTo(new Receipt(this.key, 5));
		assertThat(this.handlers.runs()).hasValue(2);
	}

	@Test
	void aStepThatOutlivesItsLeaseIsNotRunTwiceWhileItsHolderIsAlive() throws Exception {
		CountDownLatch gate = new CountDownLatch(1);
		this.handlers.reset(false, gate);
		ExecutorService holder = Executors.newSingleThreadExecutor();
		try {
			Future<String> first = holder.submit(() -> this.handlers.slow(this.key));
			await().atMost(Duration.ofSeconds(5)).until(() -> this.handlers.runs().get() == 1);
			// duplicate deliveries for four leases (300ms each): the holder renews its
			// lease
			long until = System.nanoTime() + Duration.ofMillis(1200).toNanos();
			int duplicates = 0;
			while (System.nanoTime() < until) {
				assertThatExceptionOfType(StepInProgressException.class).isThrownBy(() -> this.handlers.slow(this.key));
				duplicates++;
			}
			gate.countDown();
			assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo("done");
			assertThat(duplicates).isPositive();
			assertThat(this.handlers.runs()).as("run once").hasValue(1);
			assertThat(this.handlers.slow(this.key)).as("the duplicate after completion replays").isEqualTo("done");
		}
		finally {
			gate.countDown();
			holder.shutdownNow();
		}
	}

	@Test
	void thirtyTwoConcurrentDeliveriesRunTheMethodOnce() throws Exception {
		CountDownLatch gate = new CountDownLatch(1);
		this.handlers.reset(false, gate);
		ExecutorService pool = Executors.newFixedThreadPool(32);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<Object>> deliveries = new ArrayList<>();
			for (int i = 0; i < 32; i++) {
				deliveries.add(pool.submit(() -> {
					start.await();
					try {
						return this.handlers.charge(this.key, 7);
					}
					catch (StepInProgressException ex) {
						return ex;
					}
				}));
			}
			start.countDown();
			// the first delivery holds the step until the gate opens: the others are
			// refused
			int inProgress = 0;
			await().atMost(Duration.ofSeconds(10))
				.until(() -> deliveries.stream().filter(Future::isDone).count() >= 31);
			gate.countDown();
			for (Future<Object> delivery : deliveries) {
				Object answer = delivery.get();
				assertThat(answer).isInstanceOfAny(Receipt.class, StepInProgressException.class);
				inProgress += (answer instanceof StepInProgressException) ? 1 : 0;
			}
			assertThat(inProgress).isEqualTo(31);
			assertThat(this.handlers.charge(this.key, 7)).isEqualTo(new Receipt(this.key, 7));
			assertThat(this.handlers.runs()).hasValue(1);
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void aReusedKeyWithAnotherPayloadIsRefused() {
		Receipt order = new Receipt("order-1", 300);
		assertThat(this.handlers.order(this.key, order)).isEqualTo(order);
		assertThat(this.handlers.order(this.key, new Receipt("order-1", 300))).isEqualTo(order);
		assertThatExceptionOfType(IdempotencyKeyReusedException.class)
			.isThrownBy(() -> this.handlers.order(this.key, new Receipt("order-1", 999)));
		assertThat(this.handlers.runs()).hasValue(1);
	}

	@Test
	void anOperationThatEvaluatesToNullIsAClearError() {
		assertThatExceptionOfType(KeyExpressionException.class).isThrownBy(() -> this.handlers.broken(this.key))
			.withMessageContaining("#missing");
	}

}
