package io.github.redkit.budget;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redkit.budget.internal.RedisBudgets;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.testsupport.RedisTopology;
import io.github.redkit.testsupport.ScannedKeys;
import io.github.redkit.testsupport.TcpProxy;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Budget changes applied once when the client sends them again: the connection is cut
 * after Redis applied a call and before its answer came back
 * ({@link TcpProxy#cutAfterNextWrite()}), so Lettuce reconnects and sends the same call
 * again (issue 43). The balance must change by exactly the amount, once.
 */
class BudgetReplayTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private final TcpProxy link = TcpProxy.start(RedisServers.standalone().port());

	private final LettuceConnectionFactory factory = this.link.connectionFactory(TIMEOUT);

	private final String budgetId = "replayed-" + UUID.randomUUID();

	private final RedisKeyspace keyspace = new RedisKeyspace("brp-" + UUID.randomUUID());

	private final RedisBudgets budgets = budgets(new RedisScriptRunner(this.factory), TIMEOUT);

	private final RedisBudgets direct = budgets(new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory()),
			Duration.ofSeconds(5));

	@BeforeEach
	void connect() {
		this.direct.create(this.budgetId, 1_000);
		// connected, and the script loaded, before the cut
		assertThat(this.budgets.remaining(this.budgetId)).isEqualTo(1_000);
	}

	@AfterEach
	void close() {
		this.direct.delete(this.budgetId);
		this.factory.destroy();
		this.link.close();
	}

	@Test
	void aSpendWithoutAnOperationIdIsAppliedOnce() {
		StringRedisTemplate redis = new StringRedisTemplate(RedisTopology.STANDALONE.connectionFactory());
		String pattern = this.keyspace.key("budget").tag(this.budgetId).build() + ":op:once:*";
		// the create's own record (a create carries a generated id too)
		Set<String> before = ScannedKeys.matching(redis, pattern);
		this.link.cutAfterNextWrite();
		SpendResult spent = this.budgets.spend(this.budgetId, 100);
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(spent).isEqualTo(new SpendResult(true, 900));
		assertThat(this.direct.remaining(this.budgetId)).isEqualTo(900);
		// the generated id is kept for the replay window only: twice the command timeout
		Set<String> records = ScannedKeys.matching(redis, pattern);
		records.removeAll(before);
		assertThat(records).hasSize(1);
		assertThat(redis.getExpire(records.iterator().next(), TimeUnit.MILLISECONDS)).isPositive()
			.isLessThanOrEqualTo(TIMEOUT.multipliedBy(2).toMillis());
	}

	@Test
	void anAsynchronousSpendWithoutAnOperationIdIsAppliedOnce() {
		this.link.cutAfterNextWrite();
		SpendResult spent = this.budgets.spendAsync(this.budgetId, 100).join();
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(spent).isEqualTo(new SpendResult(true, 900));
		assertThat(this.direct.remaining(this.budgetId)).isEqualTo(900);
	}

	@Test
	void aRefundIsAppliedOnce() {
		this.link.cutAfterNextWrite();
		SpendResult refunded = this.budgets.refund(this.budgetId, 50, "refund-1");
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(refunded.applied()).isTrue();
		assertThat(this.direct.remaining(this.budgetId)).isEqualTo(1_050);
	}

	@Test
	void aReservationWithoutAnOperationIdIsAppliedOnce() {
		this.link.cutAfterNextWrite();
		Optional<Reservation> reserved = this.budgets.reserve(this.budgetId, 300, Duration.ofMinutes(5));
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(reserved).isPresent();
		assertThat(this.direct.remaining(this.budgetId)).isEqualTo(700);
		this.direct.release(reserved.get());
		assertThat(this.direct.remaining(this.budgetId)).as("nothing lost to the replay").isEqualTo(1_000);
	}

	@Test
	void aCommitIsAppliedOnce() {
		Reservation reserved = this.budgets.reserve(this.budgetId, 300, Duration.ofMinutes(5)).orElseThrow();
		this.link.cutAfterNextWrite();
		SpendResult committed = this.budgets.commit(reserved, 200);
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(committed).isEqualTo(new SpendResult(true, 800));
		assertThat(this.direct.remaining(this.budgetId)).isEqualTo(800);
	}

	@Test
	void aReleaseIsAppliedOnce() {
		Reservation reserved = this.budgets.reserve(this.budgetId, 300, Duration.ofMinutes(5)).orElseThrow();
		Reservation other = this.budgets.reserve(this.budgetId, 100, Duration.ofMinutes(5)).orElseThrow();
		this.link.cutAfterNextWrite();
		this.budgets.release(reserved);
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(this.direct.remaining(this.budgetId)).isEqualTo(900);
		this.direct.release(other);
		assertThat(this.direct.remaining(this.budgetId)).isEqualTo(1_000);
	}

	@Test
	void aReplacingCreateIsAppliedOnce() {
		// a second between the cut and the reconnect: room for another instance's spend
		ClientResources resources = ClientResources.builder()
			.reconnectDelay(Delay.constant(Duration.ofSeconds(1)))
			.build();
		LettuceConnectionFactory slow = this.link.connectionFactory(TIMEOUT, resources);
		try {
			RedisBudgets budgets = budgets(new RedisScriptRunner(slow), TIMEOUT);
			assertThat(budgets.remaining(this.budgetId)).isEqualTo(1_000);
			this.link.cutAfterNextWrite();
			CompletableFuture<Boolean> replaced = budgets.createAsync(this.budgetId, 500, true);
			await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(5)).until(() -> this.link.cutsAfterWrite() == 1);
			// another instance spends between the first application and the re-send
			assertThat(this.direct.spend(this.budgetId, 100)).isEqualTo(new SpendResult(true, 400));
			assertThat(replaced.join()).isTrue();
			assertThat(this.direct.remaining(this.budgetId)).as("the spend is not undone").isEqualTo(400);
		}
		finally {
			slow.destroy();
			resources.shutdown();
		}
	}

	@Test
	void aCreateAndADeleteSentAgainAnswerWhatTheyDid() {
		String id = "created-" + UUID.randomUUID();
		this.link.cutAfterNextWrite();
		assertThat(this.budgets.create(id, 500)).as("created by this very call").isTrue();
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(this.direct.remaining(id)).isEqualTo(500);
		this.link.cutAfterNextWrite();
		assertThat(this.budgets.delete(id)).as("deleted by this very call").isTrue();
		assertThat(this.link.cutsAfterWrite()).isEqualTo(2);
		assertThat(this.direct.create(id, 1)).as("gone").isTrue();
		this.direct.delete(id);
	}

	@Test
	void aCreateOrADeleteSentAgainUndoesNothingDoneBetweenTheTwo() {
		// a second between the cut and the reconnect: room for another instance's call
		ClientResources resources = ClientResources.builder()
			.reconnectDelay(Delay.constant(Duration.ofSeconds(1)))
			.build();
		LettuceConnectionFactory slow = this.link.connectionFactory(TIMEOUT, resources);
		try {
			RedisBudgets budgets = budgets(new RedisScriptRunner(slow), TIMEOUT);
			assertThat(budgets.remaining(this.budgetId)).isEqualTo(1_000);
			this.link.cutAfterNextWrite();
			CompletableFuture<Boolean> refused = budgets.createAsync(this.budgetId, 500, false);
			await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(5)).until(() -> this.link.cutsAfterWrite() == 1);
			// another instance deletes the budget between the first application and the
			// copy
			assertThat(this.direct.delete(this.budgetId)).isTrue();
			assertThat(refused.join()).as("it existed: refused").isFalse();
			assertThat(this.direct.create(this.budgetId, 1_000)).as("the copy created nothing").isTrue();
			this.link.cutAfterNextWrite();
			CompletableFuture<Boolean> deleted = budgets.deleteAsync(this.budgetId);
			await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(5)).until(() -> this.link.cutsAfterWrite() == 2);
			// another instance creates it again between the first application and the
			// copy
			assertThat(this.direct.create(this.budgetId, 700)).isTrue();
			assertThat(deleted.join()).isTrue();
			assertThat(this.direct.remaining(this.budgetId)).as("the copy deleted nothing").isEqualTo(700);
		}
		finally {
			slow.destroy();
			resources.shutdown();
		}
	}

	@Test
	void aReservationSentAgainAfterItsRecordExpiredTakesNothingMore() {
		// the copy arrives a second after the cut, the record of the generated id lived
		// 100 ms: only the reservation itself still says that the call was applied
		ClientResources resources = ClientResources.builder()
			.reconnectDelay(Delay.constant(Duration.ofSeconds(1)))
			.build();
		LettuceConnectionFactory slow = this.link.connectionFactory(TIMEOUT, resources);
		try {
			RedisBudgets budgets = new RedisBudgets(new RedisScriptRunner(slow), this.keyspace, TIMEOUT,
					Duration.ofMillis(100), new MicrometerRedkitMetrics(SimpleMeterRegistry::new),
					RedkitObservations.NONE);
			assertThat(budgets.remaining(this.budgetId)).isEqualTo(1_000);
			this.link.cutAfterNextWrite();
			Reservation reserved = budgets.reserve(this.budgetId, 300, Duration.ofMinutes(5)).orElseThrow();
			assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
			assertThat(this.direct.remaining(this.budgetId)).isEqualTo(700);
			this.direct.release(reserved);
			assertThat(this.direct.remaining(this.budgetId)).as("nothing lost to the copy").isEqualTo(1_000);
		}
		finally {
			slow.destroy();
			resources.shutdown();
		}
	}

	private RedisBudgets budgets(RedisScriptRunner runner, Duration timeout) {
		RedisBudgets budgets = new RedisBudgets(runner, this.keyspace, timeout, Duration.ofHours(1),
				new MicrometerRedkitMetrics(SimpleMeterRegistry::new), RedkitObservations.NONE);
		budgets.setCommandTimeout(TIMEOUT);
		return budgets;
	}

}
