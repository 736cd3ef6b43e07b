package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.internal.QueueTestSupport.Email;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A stop whose look at what a consumer settles on its own ({@code settling()}) comes just
 * before the consumer registers its settle: the consumer's listener returned (nothing in
 * hand for the stop to take) and its end's give-backs had not started yet. The stop still
 * waits for them before it closes settling, within its bounded wait (session 35 left this
 * window open: the stop closed settling at once and cut the give-backs that go one after
 * another).
 */
class QueueStopLateSettlingTests {

	/**
	 * Long enough for the listener, released once the stop began, to return and its
	 * consumer to reach its first give-back before the stop's deadline on a loaded
	 * machine.
	 */
	private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(3);

	/**
	 * Prefetch 3: the listener on message 1 returns once the stop began, and the
	 * consumer's end acknowledges it and gives back 3, then 2. The first give-back is
	 * held as it starts (holding the consumer's sending lock) until the stop, past its
	 * deadline, has looked and waits to close settling; its answer is held until the stop
	 * returned or waits for it. Both prefetched messages are back when the stop returns.
	 */
	@ParameterizedTest
	@EnumSource(QueueStore.class)
	void aStopWaitsForASettleRegisteredJustAfterItLooked(QueueStore store) throws Exception {
		try (QueueTestSupport support = new QueueTestSupport(RedisTopology.STANDALONE, store)) {
			CountDownLatch inGiveBack = new CountDownLatch(1);
			CountDownLatch giveBackMayStart = new CountDownLatch(1);
			CompletableFuture<Void> answer = new CompletableFuture<>();
			AtomicBoolean first = new AtomicBoolean(true);
			RedisQueueTemplate template = new RedisQueueTemplate(
					new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory()), QueueTestSupport.KEYSPACE,
					QueueTestSupport.JSON, support::settings, RedkitMetrics.NONE, RedkitObservations.NONE) {

				@Override
				public CompletableFuture<Boolean> releaseAsync(QueueMessage<?> message) {
					if (!first.getAndSet(false)) {
						return super.releaseAsync(message);
					}
					inGiveBack.countDown();
					awaitRelease(giveBackMayStart);
					return super.releaseAsync(message).thenCombine(answer, (released, held) -> released);
				}

			};
			String queue = support.prefetchingQueue(Duration.ofSeconds(30), 3);
			template.sendAll(queue, List.of(new Email("a", 1), new Email("b", 2), new Email("c", 3)));
			CountDownLatch listening = new CountDownLatch(1);
			CountDownLatch stopBegan = new CountDownLatch(1);
			DefaultQueueListenerContainer container = support.container(template, queue, 1,
					QueueTestSupport.handler(Email.class, (payload) -> {
						listening.countDown();
						awaitRelease(stopBegan);
					}), SHUTDOWN_TIMEOUT);
			container.start();
			assertThat(listening.await(20, TimeUnit.SECONDS)).isTrue();
			Thread stopper = new Thread(container::stop, "stopper");
			stopper.start();
			// the stop told the consumer to stop and waits for its thread until its
			// deadline
			await().pollInterval(Duration.ofMillis(5))
				.atMost(Duration.ofSeconds(10))
				.until(() -> inMethod(stopper, "join"));
			stopBegan.countDown();
			assertThat(inGiveBack.await(20, TimeUnit.SECONDS)).isTrue();
			// past its deadline the stop found nothing in hand, looked at the consumer's
			// settling, and waits for the consumer's lock to close settling
			await().pollInterval(Duration.ofMillis(5))
				.atMost(Duration.ofSeconds(10))
				.until(() -> stopper.getState() == Thread.State.BLOCKED);
			giveBackMayStart.countDown();
			await().pollInterval(Duration.ofMillis(5))
				.atMost(Duration.ofSeconds(10))
				.until(() -> !stopper.isAlive() || stopper.getState() == Thread.State.TIMED_WAITING);
			answer.complete(null);
			stopper.join(TimeUnit.SECONDS.toMillis(20));
			assertThat(stopper.isAlive()).isFalse();
			List<Integer> back = template.receive(queue, Email.class, 10)
				.stream()
				.map((message) -> message.payload().number())
				.toList();
			if (store == QueueStore.LIST) {
				assertThat(back).as("given back before the stop returned, in their order").containsExactly(2, 3);
			}
			else {
				assertThat(back).as("given back before the stop returned").containsExactlyInAnyOrder(2, 3);
			}
		}
	}

	private static boolean inMethod(Thread thread, String method) {
		return Arrays.stream(thread.getStackTrace()).anyMatch((frame) -> frame.getMethodName().equals(method));
	}

	private static void awaitRelease(CountDownLatch latch) {
		try {
			if (!latch.await(20, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Not released in time");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
