package io.github.redkit.budget;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import io.github.redkit.budget.internal.BudgetAllowance;
import io.github.redkit.budget.internal.RedisBudgets;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.testsupport.RedisTopology;
import io.github.redkit.testsupport.ScannedKeys;
import io.github.redkit.testsupport.TcpProxy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * A local allowance's batches when Redis is away or its answers are lost: what the fault
 * harness found once it covered budgets' allowances. Each instance reaches Redis through
 * a proxy of its own, which delays or cuts its link.
 */
class BudgetAllowanceFaultTests {

	private static final long SIZE = 25;

	private static final Duration TIMEOUT = Duration.ofMillis(300);

	private final TcpProxy link = TcpProxy.start(RedisServers.standalone().port());

	private final LettuceConnectionFactory factory = this.link.connectionFactory(Duration.ofSeconds(1));

	private final String budgetId = "faulty-" + UUID.randomUUID();

	private final RedisKeyspace keyspace = new RedisKeyspace("baf-" + UUID.randomUUID());

	@AfterEach
	void close() {
		this.factory.destroy();
		this.link.close();
	}

	/**
	 * The answer to a batch's spend lost after Redis applied it (here: it came after the
	 * caller's timeout): the instance holds no batch, yet the balance lost it. It must
	 * come back whole.
	 */
	@Test
	void aBatchWhoseAnswerWasLostIsGivenBackWhole() throws Exception {
		RedisBudgets budgets = budgets(this.factory);
		RedisBudgets direct = direct();
		direct.create(this.budgetId, 1_000);
		// connected before the link slows down (a cold first call, connect and script
		// load,
		// may take longer than the 300 ms bound on a loaded machine)
		await().atMost(Duration.ofSeconds(10))
			.ignoreExceptions()
			.until(() -> budgets.remaining(this.budgetId) == 1_000);
		this.link.delay(Duration.ofMillis(500));
		assertThatException().isThrownBy(() -> budgets.spend(this.budgetId, 1));
		Thread.sleep(1_500);
		this.link.heal();
		StringRedisTemplate redis = new StringRedisTemplate(RedisTopology.STANDALONE.connectionFactory());
		Set<String> spends = ScannedKeys.matching(redis,
				this.keyspace.key("budget").tag(this.budgetId).build() + ":op:spend:*");
		assertThat(spends).hasSize(1);
		assertThat(redis.opsForValue().get(spends.iterator().next())).as("the batch's spend applied").startsWith("1|");
		budgets.stop();
		assertThat(direct.remaining(this.budgetId)).isEqualTo(1_000);
	}

	/**
	 * A give-back that failed (Redis away when the batch's max-age ended) is retried once
	 * Redis is back, not dropped with a warning.
	 */
	@Test
	void aGiveBackThatFailedIsRetried() throws Exception {
		RedisBudgets budgets = budgets(this.factory);
		RedisBudgets direct = direct();
		direct.create(this.budgetId, 1_000);
		assertThat(budgets.spend(this.budgetId, 1).applied()).isTrue();
		this.link.retarget(closedPort());
		this.link.cut();
		Thread.sleep(150);
		// the batch has ended: this spend gives it back, and fails to take another
		assertThatException().isThrownBy(() -> budgets.spend(this.budgetId, 1));
		// past the connection's command timeout: nothing it held is sent once it is back
		Thread.sleep(1_500);
		this.link.retarget(RedisServers.standalone().port());
		long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
		while (direct.remaining(this.budgetId) != 1_000 - 1 && System.nanoTime() < deadline) {
			Thread.sleep(50);
		}
		assertThat(direct.remaining(this.budgetId)).isEqualTo(1_000 - 1);
		budgets.stop();
		assertThat(direct.remaining(this.budgetId)).isEqualTo(1_000 - 1);
	}

	/**
	 * {@code giveback} refunds part of a batch only if that batch's spend applied: the
	 * record of a refused spend (or of no spend at all, a spend whose answer was lost
	 * before it reached Redis) gives nothing back. A spend that arrives after the
	 * give-back found no record of it applies no more: the balance never pays for a batch
	 * nobody hands out.
	 */
	@Test
	void aGiveBackAppliesOnlyIfItsBatchsSpendApplied() {
		RedisBudgets direct = direct();
		direct.create(this.budgetId, 10);
		assertThat(direct.spend(this.budgetId, SIZE, "allowance:refused").applied()).isFalse();
		assertThat(giveBack(SIZE, "allowance:refused")).isEqualTo(List.of(0L, 10L, 0L));
		assertThat(direct.remaining(this.budgetId)).isEqualTo(10);
		assertThat(giveBack(5, "allowance:never")).isEqualTo(List.of(0L, 10L, 0L));
		// the spend arrives after its give-back: a replay of "not applied"
		assertThat(direct.spend(this.budgetId, 5, "allowance:never").applied()).isFalse();
		assertThat(direct.remaining(this.budgetId)).isEqualTo(10);
		assertThat(direct.spend(this.budgetId, 4, "allowance:applied").applied()).isTrue();
		assertThat(giveBack(3, "allowance:applied")).isEqualTo(List.of(1L, 9L, 0L, ""));
		assertThat(giveBack(3, "allowance:applied").get(2)).as("replayed").isEqualTo(1L);
		assertThat(direct.remaining(this.budgetId)).isEqualTo(9);
	}

	private List<?> giveBack(long amount, String operationId) {
		RedisKeyspace.Key budget = this.keyspace.key("budget").tag(this.budgetId);
		List<String> keys = List.of(budget.part("balance").build(), budget.part("reservations").build(),
				budget.part("deadlines").build(), budget.part("op", "refund", operationId).build(),
				budget.part("op", "spend", operationId).build());
		return new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory()).execute(
				LuaScript.load("budget_apply", List.class), keys, "giveback", Long.toString(amount), "", "0", "3600000",
				Long.toString(Budgets.MAX_AMOUNT));
	}

	private RedisBudgets budgets(LettuceConnectionFactory connections) {
		return new RedisBudgets(new RedisScriptRunner(connections), this.keyspace, TIMEOUT, Duration.ofHours(1),
				new MicrometerRedkitMetrics(SimpleMeterRegistry::new), RedkitObservations.NONE,
				Map.of(this.budgetId, new BudgetAllowance(SIZE, Duration.ofMillis(100))));
	}

	private RedisBudgets direct() {
		return new RedisBudgets(new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory()), this.keyspace,
				Duration.ofSeconds(5), Duration.ofHours(1), new MicrometerRedkitMetrics(SimpleMeterRegistry::new),
				RedkitObservations.NONE);
	}

	private static int closedPort() throws Exception {
		try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
