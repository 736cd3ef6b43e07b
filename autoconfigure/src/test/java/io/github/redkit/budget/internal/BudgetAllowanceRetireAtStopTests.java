package io.github.redkit.budget.internal;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A batch that ended at its max-age (its timer took it out of its slot) and whose
 * give-back is sent only once stopping has swept the slots: stopping must wait for that
 * give-back. It used to find the slot empty and nothing in flight and return at once, the
 * give-back being tracked only once sent: it then reached Redis after the application had
 * stopped waiting, while the connections it needs were closing, and its units could be
 * lost.
 */
class BudgetAllowanceRetireAtStopTests {

	@Test
	void stoppingWaitsForTheGiveBackOfABatchItsTimerRetiredBeforeTheSweep() throws Exception {
		String budgetId = "retire-" + UUID.randomUUID();
		AtomicBoolean armed = new AtomicBoolean(true);
		CountDownLatch retired = new CountDownLatch(1);
		CompletableFuture<Void> stopped = new CompletableFuture<>();
		// the thread that retired the batch waits there for the stop to return (at most
		// 2 s, when the stop waits for its give-back)
		RedisBudgets budgets = new RedisBudgets(new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory()),
				new RedisKeyspace("bts-" + UUID.randomUUID()), Duration.ofSeconds(5), Duration.ofHours(1),
				RedkitMetrics.NONE, RedkitObservations.NONE,
				Map.of(budgetId, new BudgetAllowance(50, Duration.ofMillis(200))));
		budgets.whenRetired((id) -> {
			if (armed.compareAndSet(true, false)) {
				retired.countDown();
				try {
					stopped.get(2, TimeUnit.SECONDS);
				}
				catch (TimeoutException ex) {
					// the stop waits for this give-back: it goes on
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			}
		});
		budgets.start();
		budgets.create(budgetId, 1_000);
		assertThat(budgets.spend(budgetId, 1).applied()).isTrue();
		// no spend comes: the batch's timer retires it at its max-age
		assertThat(retired.await(10, TimeUnit.SECONDS)).isTrue();
		AtomicLong balanceAtStop = new AtomicLong(-1);
		new Thread(() -> {
			try {
				budgets.stop();
				balanceAtStop.set(budgets.remaining(budgetId));
			}
			finally {
				stopped.complete(null);
			}
		}).start();
		stopped.get(30, TimeUnit.SECONDS);
		assertThat(balanceAtStop.get())
			.as("the balance once stopped: the 1 spent, the rest of the batch its timer retired back")
			.isEqualTo(999);
	}

}
