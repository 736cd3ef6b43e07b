package io.github.redkit.budget;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.redkit.budget.internal.BudgetAllowance;
import io.github.redkit.budget.internal.RedisBudgets;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.RedisTopology;
import io.github.redkit.testsupport.ScannedKeys;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * A budget's local allowance whose batch no spend comes for: what it holds is refunded
 * once its max-age has passed, while Redis still holds the record of the batch's spend
 * (kept for {@code operation-ttl}). It used to be held until the next spend or until the
 * application stopped: a batch idle longer than {@code operation-ttl} was then given back
 * into a Redis that had forgotten its spend, which refuses it, and its units were lost.
 */
class BudgetAllowanceIdleTests {

	private static final long SIZE = 50;

	// long enough for the test to find the batch's spend record before Redis expires it
	// (600 ms was not, once, in a clean-clone .ci/run: the scan found it gone)
	private static final Duration OPERATION_TTL = Duration.ofSeconds(2);

	@Test
	void aBatchIdleLongerThanTheOperationTtlLosesNothing() {
		String budgetId = "idle-" + UUID.randomUUID();
		String prefix = "bai-" + UUID.randomUUID();
		RedisBudgets budgets = instance(prefix, budgetId, Duration.ofMillis(100));
		budgets.create(budgetId, 1_000);
		assertThat(budgets.spend(budgetId, 1).applied()).isTrue();
		StringRedisTemplate redis = new StringRedisTemplate(RedisTopology.STANDALONE.connectionFactory());
		List<String> spends = List.copyOf(ScannedKeys.matching(redis, prefix + ":budget:*:op:spend:*"));
		assertThat(spends).as("the record of the batch's spend").hasSize(1);
		// Redis' own expiry of that record (EXISTS expires it): no spend comes meanwhile
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> !Boolean.TRUE.equals(redis.hasKey(spends.get(0))));
		budgets.stop();
		assertThat(budgets.remaining(budgetId)).as("balance + spent = the budget, to the unit").isEqualTo(999);
	}

	@Test
	void anIdleBatchIsRefundedOnceItsMaxAgeHasPassed() {
		String budgetId = "idle-" + UUID.randomUUID();
		RedisBudgets budgets = instance("bai-" + UUID.randomUUID(), budgetId, Duration.ofMillis(100));
		budgets.create(budgetId, 1_000);
		assertThat(budgets.spend(budgetId, 1).applied()).isTrue();
		assertThat(budgets.remaining(budgetId)).isEqualTo(1_000 - SIZE);
		// no spend, no stop: the batch's own end gives it back
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> budgets.remaining(budgetId) == 999);
		// the next spend takes a batch again and is served as before
		assertThat(budgets.spend(budgetId, 1).remaining()).isEqualTo(998);
		budgets.stop();
		assertThat(budgets.remaining(budgetId)).isEqualTo(998);
	}

	@Test
	void aMaxAgeOfHalfTheOperationTtlOrMoreIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> instance("bai", "any", OPERATION_TTL.dividedBy(2)))
			.withMessageContaining("max-age")
			.withMessageContaining("operation-ttl");
	}

	private static RedisBudgets instance(String prefix, String budgetId, Duration maxAge) {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		return new RedisBudgets(new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory()),
				new RedisKeyspace(prefix), Duration.ofSeconds(5), OPERATION_TTL,
				new MicrometerRedkitMetrics(() -> registry), RedkitObservations.NONE,
				Map.of(budgetId, new BudgetAllowance(SIZE, maxAge)));
	}

}
