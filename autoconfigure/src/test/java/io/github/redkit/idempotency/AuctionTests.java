package io.github.redkit.idempotency;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.budget.Budgets;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The seed's ad auction end to end: 400 auctions whose messages arrive duplicated,
 * shuffled and concurrently leave the budget at exactly the initial amount minus the
 * committed prices. Each auction is a race of its own (two to nine messages on eight
 * workers); more auctions repeat the same races at CPU cost in proportion (issue 44).
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
class AuctionTests {

	private static final int AUCTIONS = 400;

	private static final long INITIAL = 1_000_000;

	@Parameter
	RedisTopology topology;

	@Test
	void duplicatedAndShuffledDeliveriesMoveTheBudgetByTheCommittedPricesExactly() throws Exception {
		ConfigurableApplicationContext context = StepsApplication.context(this.topology);
		AuctionService auctions = context.getBean(AuctionService.class);
		IdempotentSteps steps = context.getBean(IdempotentSteps.class);
		Budgets budgets = context.getBean(Budgets.class);
		String run = UUID.randomUUID().toString();
		auctions.useBudget("campaign:" + run);
		budgets.create(auctions.budget(), INITIAL);

		Random random = new Random(42);
		List<Runnable> messages = new ArrayList<>();
		for (int i = 0; i < AUCTIONS; i++) {
			String auction = run + ":" + i;
			long bid = 50 + random.nextInt(50);
			long price = bid - random.nextInt(10);
			boolean won = i % 3 != 0;
			// some auctions get both a notice and a late timeout: only the first may
			// count
			boolean both = i % 5 == 0;
			for (int copy = 0; copy < 1 + random.nextInt(3); copy++) {
				messages.add(() -> auctions.bid(auction, bid));
				if (won || both) {
					messages.add(() -> auctions.notice(auction, price));
				}
				if (!won || both) {
					messages.add(() -> auctions.timeout(auction));
				}
			}
		}
		Collections.shuffle(messages, random);
		deliver(messages);

		assertThat(auctions.bidRuns()).isEqualTo(AUCTIONS);
		assertThat(budgets.remaining(auctions.budget())).isEqualTo(INITIAL - auctions.committed());
		assertThat(auctions.committed()).isPositive();
		for (int i = 0; i < AUCTIONS; i += 97) {
			assertThat(steps.recordedSteps("auction:" + run + ":" + i)).hasSize(2).contains("bid");
		}
	}

	/**
	 * Delivers like a message broker: a message that came too early (its bid is not done,
	 * or a step it depends on runs) goes back to the queue; a duplicate or a message made
	 * obsolete (a timeout after the notice) is acknowledged.
	 */
	private static void deliver(List<Runnable> messages) throws Exception {
		ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>(messages);
		AtomicInteger pending = new AtomicInteger(messages.size());
		ExecutorService pool = Executors.newFixedThreadPool(8);
		try {
			List<Future<?>> workers = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				workers.add(pool.submit(() -> {
					while (pending.get() > 0) {
						Runnable message = queue.poll();
						if (message == null) {
							Thread.onSpinWait();
							continue;
						}
						try {
							message.run();
							pending.decrementAndGet();
						}
						catch (StepInProgressException ex) {
							queue.add(message);
						}
						catch (StepOutOfOrderException ex) {
							if (ex.getRecordedSteps().contains("bid")) {
								pending.decrementAndGet();
							}
							else {
								queue.add(message);
							}
						}
					}
				}));
			}
			for (Future<?> worker : workers) {
				worker.get();
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

}
