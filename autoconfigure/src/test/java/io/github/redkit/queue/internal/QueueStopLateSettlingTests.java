package io.github.redkit.queue.internal;

import java.lang.reflect.Type;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueReceiver;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.queue.internal.QueueTestSupport.Email;
import io.github.redkit.testsupport.RedisTopology;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A stop racing what a consumer sends late. A stop whose look at what a consumer settles
 * on its own ({@code settling()}) comes just before the consumer registers its settle:
 * the consumer's listener returned (nothing in hand for the stop to take) and its end's
 * give-backs had not started yet. The stop still waits for them before it closes
 * settling, within its bounded wait (session 35 left this window open: the stop closed
 * settling at once and cut the give-backs that go one after another). A consumer whose
 * take reaches Redis only after the stop returned: it is not sent. A consumer that finds
 * the stop began just before a listener would start: that message goes back in the same
 * settle as the acknowledgements of what it handled. A consumer whose take the stop gave
 * up before its claim started (going on to it, or throwing): the acknowledgements it was
 * to carry are sent at its end (an application's own template's take, which may have been
 * sent, keeps them and says so).
 */
@ExtendWith(OutputCaptureExtension.class)
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
			// past its deadline the stop waits for Redis no longer than a second by
			// default,
			// which the hand-offs below (stop, test, consumer, stop) may outlast on a
			// loaded
			// machine: the stop then closes at once, and the test would fail as the
			// defect
			// does ([3])
			container.setAnswerWait(Duration.ofSeconds(30));
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

	/**
	 * Prefetch 5 and a 100 ms {@code shutdown-timeout}: the consumer's first take is
	 * checked before the stop and parked in the template's own {@code take} (which
	 * ignores the stop's interrupt) until the stop returned, as a consumer thread
	 * descheduled for the whole stop would be; the 5 messages are sent meanwhile. Its
	 * claim is not sent after the stop: the 5 stay ready, none in flight until its
	 * visibility timeout with a delivery counted (before: all 5 in flight, its end's
	 * give-backs refused).
	 */
	@ParameterizedTest
	@EnumSource(QueueStore.class)
	void aTakeThatReachesItsClaimAfterTheStopReturnedIsNotSent(QueueStore store) throws Exception {
		try (QueueTestSupport support = new QueueTestSupport(RedisTopology.STANDALONE, store)) {
			CountDownLatch parked = new CountDownLatch(1);
			CountDownLatch stopReturned = new CountDownLatch(1);
			CountDownLatch tookAfterTheStop = new CountDownLatch(1);
			AtomicBoolean first = new AtomicBoolean(true);
			RedisQueueTemplate template = new RedisQueueTemplate(
					new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory()), QueueTestSupport.KEYSPACE,
					QueueTestSupport.JSON, support::settings, RedkitMetrics.NONE, RedkitObservations.NONE) {

				@Override
				public QueueReceiver.Batch take(String queue, Type payloadType, List<? extends QueueMessage<?>> done,
						int max) {
					if (!first.getAndSet(false)) {
						return super.take(queue, payloadType, done, max);
					}
					parked.countDown();
					awaitIgnoringInterrupts(stopReturned);
					try {
						return super.take(queue, payloadType, done, max);
					}
					finally {
						tookAfterTheStop.countDown();
					}
				}

			};
			String queue = support.prefetchingQueue(Duration.ofSeconds(30), 5);
			DefaultQueueListenerContainer container = support.container(template, queue, 1,
					QueueTestSupport.handler(Email.class, (payload) -> {
					}), Duration.ofMillis(100));
			container.start();
			assertThat(parked.await(20, TimeUnit.SECONDS)).isTrue();
			template.sendAll(queue, IntStream.rangeClosed(1, 5).mapToObj((n) -> new Email("x", n)).toList());
			container.stop();
			stopReturned.countDown();
			assertThat(tookAfterTheStop.await(20, TimeUnit.SECONDS)).isTrue();
			// what the consumer sends at its end is refused (the stop returned): once it
			// ended, nothing more changes
			awaitConsumerEnded(queue);
			QueueStats stats = template.stats(queue);
			assertThat(stats.inFlight()).as("taken after the stop returned").isZero();
			assertThat(stats.ready()).isEqualTo(5);
		}
	}

	/**
	 * Prefetch 2 and a 100 ms {@code shutdown-timeout}: message 1's listener returns, and
	 * the take that carries its acknowledgement is checked before the stop and parked in
	 * the template's own {@code take} until the stop gives it up (its interrupt), then
	 * reaches its claim, which the stop refuses: nothing was sent. The consumer's end
	 * sends the acknowledgement, and the stop waits for it within its bound (before: the
	 * end took it for sent with the take given up, and sent nothing; message 1 stayed in
	 * flight, to be delivered again).
	 */
	@ParameterizedTest
	@EnumSource(QueueStore.class)
	void theAcknowledgementsOfATakeGivenUpBeforeItsClaimAreSentAtTheEnd(QueueStore store) throws Exception {
		assertThat(inFlightAfterGivingUpATakeParkedBeforeItsClaim(store, ParkedStep.GOES_ON))
			.as("message 1 acknowledged, not left to come back")
			.isZero();
	}

	/**
	 * As above, but the step the take is parked in throws when the stop interrupts it (a
	 * slow Redis call, a rate limiter's wait of the template's subclass) instead of going
	 * on to the claim: nothing was sent either, and the consumer's end sends the
	 * acknowledgement (before: the take ended by an exception counted as sent, and
	 * message 1 stayed in flight).
	 */
	@ParameterizedTest
	@EnumSource(QueueStore.class)
	void theAcknowledgementsOfATakeGivenUpThatThrowsBeforeItsClaimAreSentAtTheEnd(QueueStore store) throws Exception {
		assertThat(inFlightAfterGivingUpATakeParkedBeforeItsClaim(store, ParkedStep.THROWS))
			.as("message 1 acknowledged, not left to come back")
			.isZero();
	}

	/**
	 * As above, but the step parks on every take that carries the acknowledgement (a slow
	 * step of the subclass's own runs each time): the end sends the acknowledgement
	 * alone, not through the template's take again, so the stop still returns within its
	 * bound (before: the end sent it in a take under the failed take's name, which parked
	 * in the step again with nobody to interrupt it, and the stop waited for it).
	 */
	@ParameterizedTest
	@EnumSource(QueueStore.class)
	void aGivenUpTakeWhoseStepParksEveryTimeLeavesItsAcknowledgementsToTheEndsOwnCall(QueueStore store)
			throws Exception {
		assertThat(inFlightAfterGivingUpATakeParkedBeforeItsClaim(store, ParkedStep.THROWS_EVERY_TIME))
			.as("message 1 acknowledged, not left to come back")
			.isZero();
	}

	/**
	 * As above, but the step lets the interrupt's checked exception through unchecked (a
	 * Kotlin subclass, Lombok's {@code @SneakyThrows}): the take still ended before its
	 * claim (before: the consumer kept the last take's state, counted this one as sent,
	 * and sent nothing).
	 */
	@ParameterizedTest
	@EnumSource(QueueStore.class)
	void theAcknowledgementsOfATakeGivenUpThatThrowsACheckedExceptionAreSentAtTheEnd(QueueStore store)
			throws Exception {
		assertThat(inFlightAfterGivingUpATakeParkedBeforeItsClaim(store, ParkedStep.THROWS_CHECKED))
			.as("message 1 acknowledged, not left to come back")
			.isZero();
	}

	/**
	 * As above with an application's own template (not Redkit's): its take claims nothing
	 * through Redkit, so one that throws as the stop gives it up may have been sent
	 * before it failed. The consumer's end sends nothing of what it carried, and its WARN
	 * says they are applied if that template sent it: message 1 stays in flight.
	 */
	@ParameterizedTest
	@EnumSource(QueueStore.class)
	void theAcknowledgementsOfAGivenUpTakeOfAnApplicationsTemplateThatThrowsAreLeftToIt(QueueStore store,
			CapturedOutput output) throws Exception {
		try (QueueTestSupport support = new QueueTestSupport(RedisTopology.STANDALONE, store)) {
			CountDownLatch parked = new CountDownLatch(1);
			CountDownLatch leftStep = new CountDownLatch(1);
			QueueTemplate template = new ForwardingQueueTemplate(support.template) {

				@Override
				public <T> List<QueueMessage<T>> ackAndReceive(Collection<? extends QueueMessage<?>> done, String queue,
						Class<T> type, int max) {
					if (done.isEmpty() || parked.getCount() == 0) {
						return super.ackAndReceive(done, queue, type, max);
					}
					parked.countDown();
					try {
						ParkedStep.THROWS.awaitInterrupt();
						return super.ackAndReceive(done, queue, type, max);
					}
					finally {
						leftStep.countDown();
					}
				}

			};
			String queue = stopWhileATakeIsParked(support, template, parked, leftStep);
			assertThat(template.stats(queue).inFlight()).as("message 1 left to its visibility timeout").isOne();
			assertThat(output).contains("the 1 acknowledgement(s) it carried")
				.contains("are applied if its template sent it and Redis ran it");
		}
	}

	/**
	 * Sends message 1 to a new queue and runs a container of prefetch 2 and a 100 ms
	 * {@code shutdown-timeout} on the template until its take carrying message 1's
	 * acknowledgement is parked, stops it, and waits for the take to leave its step and
	 * the consumer to end.
	 * @return the queue
	 */
	private static String stopWhileATakeIsParked(QueueTestSupport support, QueueTemplate template,
			CountDownLatch parked, CountDownLatch leftStep) throws InterruptedException {
		String queue = support.prefetchingQueue(Duration.ofSeconds(30), 2);
		template.send(queue, new Email("a", 1));
		DefaultQueueListenerContainer container = support.container(template, queue, 1,
				QueueTestSupport.handler(Email.class, (payload) -> {
				}), Duration.ofMillis(100));
		// the consumer's end may reach its acknowledgement only after the stop's deadline
		// on a loaded machine: the stop waits for it long enough
		container.setAnswerWait(Duration.ofSeconds(5));
		container.start();
		assertThat(parked.await(20, TimeUnit.SECONDS)).isTrue();
		long stopping = System.nanoTime();
		container.stop();
		assertThat(Duration.ofNanos(System.nanoTime() - stopping))
			.as("the stop returns within its bound: shutdown-timeout and the answer wait")
			.isLessThan(Duration.ofSeconds(10));
		assertThat(leftStep.await(20, TimeUnit.SECONDS)).isTrue();
		awaitConsumerEnded(queue);
		return queue;
	}

	/**
	 * Runs a container of prefetch 2 and a 100 ms {@code shutdown-timeout} whose take
	 * that carries message 1's acknowledgement is parked in a step of the template's own
	 * {@code take}, before its claim, until the stop gives it up.
	 * @return how many messages are in flight once the consumer ended
	 */
	private static long inFlightAfterGivingUpATakeParkedBeforeItsClaim(QueueStore store, ParkedStep step)
			throws Exception {
		try (QueueTestSupport support = new QueueTestSupport(RedisTopology.STANDALONE, store)) {
			CountDownLatch parked = new CountDownLatch(1);
			CountDownLatch leftStep = new CountDownLatch(1);
			RedisQueueTemplate template = new RedisQueueTemplate(
					new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory()), QueueTestSupport.KEYSPACE,
					QueueTestSupport.JSON, support::settings, RedkitMetrics.NONE, RedkitObservations.NONE) {

				@Override
				public QueueReceiver.Batch take(String queue, Type payloadType, List<? extends QueueMessage<?>> done,
						int max) {
					if (done.isEmpty() || (parked.getCount() == 0 && !step.everyTime())) {
						return super.take(queue, payloadType, done, max);
					}
					parked.countDown();
					try {
						step.awaitInterrupt();
						return super.take(queue, payloadType, done, max);
					}
					finally {
						leftStep.countDown();
					}
				}

			};
			String queue = stopWhileATakeIsParked(support, template, parked, leftStep);
			QueueStats stats = template.stats(queue);
			assertThat(stats.ready()).isZero();
			return stats.inFlight();
		}
	}

	/**
	 * Prefetch 2: message 1's listener returns (its acknowledgement pending for the next
	 * take), and the stop begins while the consumer reads message 2's delivery count,
	 * before its listener starts, so that message 2 goes back. The answer to that
	 * give-back is held until the stop returned (past its deadline and its wait for
	 * Redis). Message 1's acknowledgement goes in the same settle, not in a second one
	 * after that answer, which the stop, closed by then, refuses (before: message 1
	 * stayed in flight, to be delivered again).
	 */
	@ParameterizedTest
	@EnumSource(QueueStore.class)
	void aMessageThatGoesBackAsTheStopBeganIsSettledWithTheAcknowledgements(QueueStore store) throws Exception {
		try (QueueTestSupport support = new QueueTestSupport(RedisTopology.STANDALONE, store)) {
			CountDownLatch counting = new CountDownLatch(1);
			CountDownLatch stopBegan = new CountDownLatch(1);
			CompletableFuture<Void> answer = new CompletableFuture<>();
			RedisQueueTemplate template = new RedisQueueTemplate(
					new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory()), QueueTestSupport.KEYSPACE,
					QueueTestSupport.JSON, support::settings, RedkitMetrics.NONE, RedkitObservations.NONE) {

				@Override
				public QueueReceiver.Batch take(String queue, Type payloadType, List<? extends QueueMessage<?>> done,
						int max) {
					QueueReceiver.Batch batch = super.take(queue, payloadType,
							done.stream().map(Counted::unwrap).toList(), max);
					return new QueueReceiver.Batch(batch.messages()
						.stream()
						.map((message) -> (((Email) message.payload()).number() != 2) ? message
								: new Counted(message, () -> {
									counting.countDown();
									awaitRelease(stopBegan);
								}))
						.toList(), batch.readyIn());
				}

				@Override
				public CompletableFuture<Boolean> ackAsync(QueueMessage<?> message) {
					return super.ackAsync(Counted.unwrap(message));
				}

				@Override
				public CompletableFuture<Boolean> extendAsync(QueueMessage<?> message, Duration visibility) {
					return super.extendAsync(Counted.unwrap(message), visibility);
				}

				@Override
				public CompletableFuture<Boolean> releaseAsync(QueueMessage<?> message) {
					return super.releaseAsync(Counted.unwrap(message)).thenCombine(answer,
							(released, held) -> released);
				}

			};
			String queue = support.prefetchingQueue(Duration.ofSeconds(30), 2);
			template.sendAll(queue, List.of(new Email("a", 1), new Email("b", 2)));
			DefaultQueueListenerContainer container = support.container(template, queue, 1,
					QueueTestSupport.handler(Email.class, (payload) -> {
					}), Duration.ofSeconds(1));
			container.setAnswerWait(Duration.ofMillis(100));
			container.start();
			assertThat(counting.await(20, TimeUnit.SECONDS)).isTrue();
			Thread stopper = new Thread(container::stop, "stopper");
			stopper.start();
			await().pollInterval(Duration.ofMillis(5))
				.atMost(Duration.ofSeconds(10))
				.until(() -> inMethod(stopper, "join"));
			stopBegan.countDown();
			stopper.join(TimeUnit.SECONDS.toMillis(20));
			assertThat(stopper.isAlive()).isFalse();
			answer.complete(null);
			awaitConsumerEnded(queue);
			assertThat(template.receive(queue, Email.class, 10).stream().map((message) -> message.payload().number()))
				.as("given back")
				.containsExactly(2);
			assertThat(template.stats(queue).inFlight()).as("in flight: 2 only, taken again; 1 acknowledged").isOne();
		}
	}

	/**
	 * Waits until the consumer thread of a container of concurrency 1 ended: what it sent
	 * at its end is answered, or refused.
	 */
	private static void awaitConsumerEnded(String queue) {
		await().pollInterval(Duration.ofMillis(5))
			.atMost(Duration.ofSeconds(20))
			.until(() -> Thread.getAllStackTraces()
				.keySet()
				.stream()
				.noneMatch((thread) -> thread.getName().equals("redkit-queue-" + queue + "-1")));
	}

	private static boolean inMethod(Thread thread, String method) {
		return Arrays.stream(thread.getStackTrace()).anyMatch((frame) -> frame.getMethodName().equals(method));
	}

	/**
	 * Waits for a latch as a thread descheduled would: whatever interrupts it.
	 */
	private static void awaitIgnoringInterrupts(CountDownLatch latch) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (latch.getCount() > 0 && System.nanoTime() - deadline < 0) {
			try {
				latch.await(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			}
			catch (InterruptedException ex) {
				// ignored: it goes on waiting
			}
		}
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

	/**
	 * What a step of a template's {@code take} before its claim does when the stop gives
	 * the take up: it waits for the interrupt (20 s at most: on a latch nothing counts
	 * down), then goes on to the claim or throws.
	 */
	private enum ParkedStep {

		/**
		 * Goes on to its claim, as a consumer thread past its check does.
		 */
		GOES_ON,

		/**
		 * Throws, as a Redis call or a wait of the template's own ended by the interrupt
		 * does.
		 */
		THROWS,

		/**
		 * Throws as {@link #THROWS}, and parks on every take that carries an
		 * acknowledgement, as a slow step of the template's own does.
		 */
		THROWS_EVERY_TIME,

		/**
		 * Lets the interrupt's {@link InterruptedException} through unchecked.
		 */
		THROWS_CHECKED;

		boolean everyTime() {
			return this == THROWS_EVERY_TIME;
		}

		void awaitInterrupt() {
			try {
				new CountDownLatch(1).await(20, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				if (this == THROWS_CHECKED) {
					throw ParkedStep.<RuntimeException>unchecked(ex);
				}
				if (this != GOES_ON) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(ex);
				}
			}
		}

		@SuppressWarnings("unchecked")
		private static <E extends Throwable> E unchecked(Throwable ex) throws E {
			throw (E) ex;
		}

	}

	/**
	 * A taken message whose delivery count, which its consumer reads before its listener
	 * starts, runs a hook first; its template settles the message it wraps.
	 */
	private record Counted(QueueMessage<Object> taken, Runnable onRead) implements QueueMessage<Object> {

		static QueueMessage<?> unwrap(QueueMessage<?> message) {
			return (message instanceof Counted counted) ? counted.taken() : message;
		}

		@Override
		public String queue() {
			return this.taken.queue();
		}

		@Override
		public String id() {
			return this.taken.id();
		}

		@Override
		public Map<String, String> headers() {
			return this.taken.headers();
		}

		@Override
		public int deliveries() {
			this.onRead.run();
			return this.taken.deliveries();
		}

		@Override
		public Instant sentAt() {
			return this.taken.sentAt();
		}

		@Override
		public @Nullable Object payload() {
			return this.taken.payload();
		}

	}

}
