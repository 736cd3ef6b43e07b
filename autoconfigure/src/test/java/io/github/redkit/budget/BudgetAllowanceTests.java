package io.github.redkit.budget;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.github.redkit.budget.internal.BudgetAllowance;
import io.github.redkit.budget.internal.RedisBudgets;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.testsupport.RedisTopology;
import io.github.redkit.testsupport.ScannedKeys;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Local allowances on one hot budget: four instances spend batches from one balance and
 * hand them out themselves. Continuous spenders on every instance (one of them slow, so
 * its batches last their max-age) until well after the balance is gone: never more is
 * spent than the budget held, nothing is lost once the instances stop (what they held is
 * refunded), and at most one batch per instance is left unspent.
 */
class BudgetAllowanceTests {

	private static final long BUDGET = 3_000;

	private static final long SIZE = 25;

	private static final int INSTANCES = 4;

	@Test
	void neverMoreIsSpentThanTheBudgetHeldAndNothingIsLostWhenTheInstancesStop() throws Exception {
		String budgetId = "hot-" + UUID.randomUUID();
		RedisKeyspace keyspace = new RedisKeyspace("ba-" + UUID.randomUUID());
		List<RedisBudgets> instances = new ArrayList<>();
		for (int i = 0; i < INSTANCES; i++) {
			instances.add(instance(keyspace, budgetId, new SimpleMeterRegistry()));
		}
		assertThat(instances.get(0).create(budgetId, BUDGET)).isTrue();
		AtomicLong spent = new AtomicLong();
		long end = System.nanoTime() + Duration.ofMillis(1500).toNanos();
		CountDownLatch done = new CountDownLatch(INSTANCES * 4);
		for (RedisBudgets instance : instances) {
			boolean slow = instance == instances.get(0);
			for (int t = 0; t < 4; t++) {
				Thread spender = new Thread(() -> {
					try {
						while (System.nanoTime() < end) {
							long amount = 1 + ThreadLocalRandom.current().nextInt(3);
							SpendResult result = (ThreadLocalRandom.current().nextBoolean())
									? instance.spend(budgetId, amount) : instance.spendAsync(budgetId, amount).join();
							if (result.applied()) {
								spent.addAndGet(amount);
								assertThat(result.remaining()).isNotNegative();
							}
							if (slow) {
								LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(1_000_000, 20_000_000));
							}
						}
					}
					finally {
						done.countDown();
					}
				});
				spender.setDaemon(true);
				spender.start();
			}
		}
		done.await();
		assertThat(spent.get()).as("spent of %d", BUDGET).isLessThanOrEqualTo(BUDGET);
		assertThat(spent.get()).as("left unspent at most a batch per instance")
			.isGreaterThanOrEqualTo(BUDGET - INSTANCES * SIZE);
		instances.forEach(RedisBudgets::stop);
		assertThat(instances.get(0).remaining(budgetId)).as("balance once every batch is given back")
			.isEqualTo(BUDGET - spent.get());
	}

	@Test
	void aHotBudgetTakesFewRoundTripsAndTheMetersShowWhatWasTakenHandedOutAndGivenBack() {
		String budgetId = "hot-" + UUID.randomUUID();
		MeterRegistry registry = new SimpleMeterRegistry();
		RedisBudgets budgets = instance(new RedisKeyspace("ba-" + UUID.randomUUID()), budgetId, registry);
		budgets.create(budgetId, 1_000_000);
		CommandStats before = RedisServers.standalone().commandStats();
		for (int i = 0; i < 1_000; i++) {
			assertThat(budgets.spend(budgetId, 1).applied()).isTrue();
		}
		CommandStats used = RedisServers.standalone().commandStats().since(before);
		assertThat(used.calls("evalsha") + used.calls("eval")).as("scripts for 1,000 spends: %s", used)
			.isLessThanOrEqualTo(1_000 / SIZE * 2 + 10);
		budgets.stop();
		assertThat(budgets.remaining(budgetId)).isEqualTo(1_000_000 - 1_000);
		assertThat(amount(registry, "handed-out")).isEqualTo(1_000);
		assertThat(amount(registry, "taken") - amount(registry, "given-back")).isEqualTo(1_000);
		// with an operation id a spend is idempotent in Redis: never from a batch
		assertThat(budgets.spend(budgetId, 5, "order-1").remaining()).isEqualTo(1_000_000 - 1_005);
	}

	/**
	 * Redis back on a snapshot from before a batch was spent: the balance without it and
	 * no record of its spend. What the batch held must not come back into a balance that
	 * never had it taken.
	 */
	@Test
	void aBatchIsNotGivenBackToARedisThatForgotItsSpend() {
		String budgetId = "forgot-" + UUID.randomUUID();
		String prefix = "ba-" + UUID.randomUUID();
		// a batch that lasts: what it holds is given back by the stop, not at its max-age
		RedisBudgets budgets = instance(new RedisKeyspace(prefix), budgetId, new SimpleMeterRegistry(),
				Duration.ofMinutes(1));
		budgets.create(budgetId, 1_000);
		assertThat(budgets.spend(budgetId, 1).applied()).isTrue();
		assertThat(budgets.remaining(budgetId)).isEqualTo(1_000 - SIZE);
		StringRedisTemplate redis = new StringRedisTemplate(RedisTopology.STANDALONE.connectionFactory());
		redis.opsForValue().set(prefix + ":budget:{" + budgetId + "}:balance", "1000");
		Set<String> records = ScannedKeys.matching(redis, prefix + ":budget:*:op:spend:*");
		assertThat(records).hasSize(1);
		redis.delete(records);
		budgets.stop();
		assertThat(budgets.remaining(budgetId)).isEqualTo(1_000);
	}

	/**
	 * A caller that gives up on a spend while that spend takes a batch (a reactive
	 * subscriber that cancels, a future cancelled): the batch still serves the spends
	 * after it, and the next batch is taken when it is used up. Found while the fault
	 * harness was given the allowance: the cancelled answer was the stage that let the
	 * waiting spends go on, so every spend of the budget on that instance waited forever
	 * once the batch was used up.
	 */
	@Test
	void aSpendCancelledWhileItsBatchIsTakenHoldsUpNoSpendAfterIt() throws Exception {
		for (int attempt = 0; attempt < 20; attempt++) {
			String budgetId = "cancelled-" + UUID.randomUUID();
			RedisBudgets budgets = instance(new RedisKeyspace("ba-" + UUID.randomUUID()), budgetId,
					new SimpleMeterRegistry());
			budgets.create(budgetId, 1_000);
			if (!budgets.spendAsync(budgetId, 1).cancel(true)) {
				// answered before it could be cancelled: again
				budgets.stop();
				continue;
			}
			// more than the batch has left: it is used up, and a batch is taken for this
			SpendResult next = budgets.spendAsync(budgetId, SIZE).get(5, TimeUnit.SECONDS);
			assertThat(next.applied()).isTrue();
			budgets.stop();
			// the cancelled spend was handed out from its batch all the same
			assertThat(budgets.remaining(budgetId)).isEqualTo(1_000 - 1 - SIZE);
			return;
		}
		throw new AssertionError("no spend could be cancelled while its batch was taken");
	}

	private static RedisBudgets instance(RedisKeyspace keyspace, String budgetId, MeterRegistry registry) {
		return instance(keyspace, budgetId, registry, Duration.ofMillis(100));
	}

	private static RedisBudgets instance(RedisKeyspace keyspace, String budgetId, MeterRegistry registry,
			Duration maxAge) {
		return new RedisBudgets(new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory()), keyspace,
				Duration.ofSeconds(5), Duration.ofHours(1), new MicrometerRedkitMetrics(() -> registry),
				RedkitObservations.NONE, Map.of(budgetId, new BudgetAllowance(SIZE, maxAge)));
	}

	private static double amount(MeterRegistry registry, String event) {
		return registry.find("redkit.budget.allowance.amounts")
			.tag("event", event)
			.counters()
			.stream()
			.mapToDouble((counter) -> counter.count())
			.sum();
	}

}
