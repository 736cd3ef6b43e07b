package io.github.redkit.budget;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.budget.internal.BudgetAllowance;
import io.github.redkit.budget.internal.RedisBudgets;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitObservation;
import io.github.redkit.core.RedkitObservationKind;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.RedisTopology;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A spend that decided to take a batch just before the application stopped, and sends
 * that take only once stopping has swept the slots: stopping must wait for that take (and
 * the give-back of the batch it brings) like any take in flight. It used to find nothing
 * in flight and return at once, the take being tracked only once sent: its batch was then
 * spent and given back after the application had stopped waiting, while the connections
 * it needs were closing.
 */
class BudgetAllowanceTakeAtStopTests {

	@Test
	void stoppingWaitsForATakeDecidedBeforeItAndSentAfterItsSweep() throws Exception {
		String budgetId = "stop-" + UUID.randomUUID();
		AtomicBoolean armed = new AtomicBoolean();
		CountDownLatch sending = new CountDownLatch(1);
		CompletableFuture<Void> stopped = new CompletableFuture<>();
		// the spend of a batch is observed on the caller's thread just before it is sent:
		// there it waits for the stop to return (at most 2 s, when the stop waits for it)
		RedkitObservations hold = new RedkitObservations() {

			@Override
			public RedkitObservation start(RedkitObservationKind kind, String name) {
				return RedkitObservation.NONE;
			}

			@Override
			public RedkitObservation startUnscoped(RedkitObservationKind kind, String name) {
				if (name.equals("spend") && armed.compareAndSet(true, false)) {
					sending.countDown();
					try {
						stopped.get(2, TimeUnit.SECONDS);
					}
					catch (TimeoutException ex) {
						// the stop waits for this take: it goes on
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
				}
				return RedkitObservation.NONE;
			}

		};
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		RedisBudgets budgets = new RedisBudgets(new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory()),
				new RedisKeyspace("bts-" + UUID.randomUUID()), Duration.ofSeconds(5), Duration.ofHours(1),
				new MicrometerRedkitMetrics(() -> registry), hold,
				Map.of(budgetId, new BudgetAllowance(50, Duration.ofMinutes(1))));
		budgets.start();
		budgets.create(budgetId, 1_000);
		armed.set(true);
		CompletableFuture<SpendResult> spent = CompletableFuture.supplyAsync(() -> budgets.spend(budgetId, 1),
				(task) -> new Thread(task).start());
		assertThat(sending.await(10, TimeUnit.SECONDS)).isTrue();
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
			.as("the balance once stopped: the spend it found deciding handed out 1, the rest of its batch back")
			.isEqualTo(999);
		assertThat(spent.get(10, TimeUnit.SECONDS).applied()).isTrue();
		assertThat(budgets.remaining(budgetId)).isEqualTo(999);
	}

}
