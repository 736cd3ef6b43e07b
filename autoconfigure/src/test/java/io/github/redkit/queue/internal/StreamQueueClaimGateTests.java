package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

import io.github.redkit.queue.CollapsePolicy;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueOrder;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.internal.QueueTestSupport.Email;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The stream store's claim gate on a busy queue (every take has a new message to read, so
 * no take scans for want of one): a retry is taken again when its backoff ends and a
 * release at once, whatever the gate (closed for a tenth of the visibility timeout after
 * a pass, 2 s here) or a pass under way was doing (issue 46).
 */
class StreamQueueClaimGateTests {

	private static final Duration VISIBILITY = Duration.ofSeconds(20);

	/**
	 * Far below the gate's 2 s, which a retry or a release held back by it would wait.
	 */
	private static final Duration MARGIN = Duration.ofMillis(500);

	private final QueueTestSupport support = new QueueTestSupport(RedisTopology.STANDALONE, QueueStore.STREAM);

	private final RedisQueueTemplate template = this.support.template;

	private final StringRedisTemplate redis = new StringRedisTemplate(RedisTopology.STANDALONE.connectionFactory());

	/** When each awaited message was given back (failed or released), in nanoTime. */
	private final Map<String, Long> givenBack = new ConcurrentHashMap<>();

	/** When each awaited message was taken again, in nanoTime. */
	private final Map<String, Long> takenAgain = new ConcurrentHashMap<>();

	/** The deliveries of each awaited message's take again. */
	private final Map<String, Integer> deliveries = new ConcurrentHashMap<>();

	@AfterEach
	void close() {
		this.support.close();
	}

	@Test
	void aRetryWhoseBackoffOutlastsTheGateIsTakenWhenItsBackoffEnds() {
		Duration backoff = Duration.ofMillis(2500);
		String queue = busyQueue(backoff);
		// the first take closes the gate for 2 s: it opens before the retry is due
		fail(queue, this.template.receive(queue, Email.class).orElseThrow());
		takeBusily(queue, Duration.ofSeconds(8), () -> true);
		assertBackWithin(backoff);
	}

	@Test
	void twoRetriesDueAtDifferentTimesAreEachTakenWhenTheirBackoffEnds() {
		Duration backoff = Duration.ofMillis(1500);
		String queue = busyQueue(backoff);
		List<QueueMessage<Email>> held = this.template.receive(queue, Email.class, 2);
		long first = fail(queue, held.get(0));
		// the second is due 750 ms after the first: the pass that claims the first must
		// not close the gate past it
		boolean[] secondFailed = { false };
		takeBusily(queue, Duration.ofSeconds(8), () -> {
			if (!secondFailed[0] && System.nanoTime() - first >= Duration.ofMillis(750).toNanos()) {
				fail(queue, held.get(1));
				secondFailed[0] = true;
			}
			return secondFailed[0];
		});
		assertBackWithin(backoff);
	}

	@Test
	void aRetryDuringAPassIsTakenWhenItsBackoffEnds() {
		Duration backoff = Duration.ofMillis(1000);
		String queue = busyQueue(backoff);
		List<QueueMessage<Email>> held = passUnderWay(queue);
		// a pass under way ends long before the retry is due, and must not close the gate
		// past it
		fail(queue, held.get(held.size() - 1));
		takeBusily(queue, Duration.ofSeconds(8), () -> true);
		assertBackWithin(backoff);
	}

	@Test
	void aReleaseBehindAPassUnderWayIsTakenAgainAtOnceCountingNoDelivery() {
		String queue = busyQueue(Duration.ofMillis(1));
		List<QueueMessage<Email>> held = passUnderWay(queue);
		// the pass scanned past the first ten takes held: the released one is behind it
		QueueMessage<Email> released = held.get(5);
		this.givenBack.put(released.id(), System.nanoTime());
		assertThat(this.template.release(released)).isTrue();
		takeBusily(queue, Duration.ofSeconds(8), () -> true);
		assertBackWithin(Duration.ZERO);
		assertThat(this.deliveries).containsEntry(released.id(), 1);
	}

	/**
	 * A queue with a 20 s visibility timeout (a 2 s gate), a fixed backoff and more
	 * messages than the test takes.
	 */
	private String busyQueue(Duration backoff) {
		String queue = this.support.queue(QueueOrder.FIFO, VISIBILITY, 5, CollapsePolicy.NONE, backoff);
		this.template.sendAll(queue, IntStream.range(0, 2000).mapToObj((i) -> new Email("x", i)).toList());
		return queue;
	}

	/**
	 * Holds forty takes, then makes a pass over them start (a release opens the gate; the
	 * next take claims the released one first and stops) and go on one take (a take of
	 * one message scans ten pending entries): the claim cursor is then the eleventh
	 * held's.
	 * @return the takes held, the first (released, taken again and acknowledged) left out
	 */
	private List<QueueMessage<Email>> passUnderWay(String queue) {
		List<QueueMessage<Email>> held = new ArrayList<>(this.template.receive(queue, Email.class, 40));
		assertThat(held).hasSize(40);
		QueueMessage<Email> first = held.remove(0);
		assertThat(this.template.release(first)).isTrue();
		QueueMessage<Email> again = this.template.receive(queue, Email.class).orElseThrow();
		assertThat(again.id()).isEqualTo(first.id());
		assertThat(this.template.ack(again)).isTrue();
		QueueMessage<Email> next = this.template.receive(queue, Email.class).orElseThrow();
		assertThat(this.template.ack(next)).isTrue();
		String cursor = this.redis.opsForValue().get(QueueKeys.of(QueueTestSupport.KEYSPACE, queue).claimCursor());
		assertThat(cursor).as("a pass under way").isEqualTo(TakenMessage.of(held.get(10)).take());
		return held;
	}

	private long fail(String queue, QueueMessage<Email> message) {
		long now = System.nanoTime();
		this.givenBack.put(message.id(), now);
		assertThat(this.template.fail(message, new IllegalStateException("boom"))).isEqualTo(FailureOutcome.RETRIED);
		return now;
	}

	/**
	 * Takes one message every 10 ms, acknowledging each new one, until every message
	 * given back was taken again, once {@code allGivenBack} (run before each take) says
	 * no more will be.
	 */
	private void takeBusily(String queue, Duration atMost, BooleanSupplier allGivenBack) {
		await().atMost(atMost).pollInterval(Duration.ofMillis(10)).until(() -> {
			boolean all = allGivenBack.getAsBoolean();
			Optional<QueueMessage<Email>> taken = this.template.receive(queue, Email.class);
			assertThat(taken).as("the queue stays busy").isPresent();
			QueueMessage<Email> message = taken.get();
			if (this.givenBack.containsKey(message.id())) {
				this.takenAgain.put(message.id(), System.nanoTime());
				this.deliveries.put(message.id(), message.deliveries());
			}
			assertThat(this.template.ack(message)).isTrue();
			return all && this.takenAgain.keySet().containsAll(this.givenBack.keySet());
		});
	}

	private void assertBackWithin(Duration backoff) {
		assertThat(this.takenAgain.keySet()).isEqualTo(this.givenBack.keySet());
		this.givenBack.forEach((id, at) -> {
			Duration waited = Duration.ofNanos(this.takenAgain.get(id) - at);
			assertThat(waited).as("message %s taken again after its backoff %s", id, backoff)
				.isGreaterThanOrEqualTo(backoff)
				.isLessThanOrEqualTo(backoff.plus(MARGIN));
		});
	}

}
