package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.queue.CollapsePolicy;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueOrder;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.internal.QueueTestSupport.Email;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.stream.PendingMessages;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A stream queue's entries deleted from under the group by the writer (a send's
 * {@code max-length} trim, {@code XTRIM}, {@code XDEL}, the application writing an
 * existing stream): a pending entry trimmed away is acknowledged by the claim that finds
 * it, and one trimmed while a consumer holds it is reported as gone by the calls of its
 * holder, not as taken again. The message is lost by the trim, not by the queue.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.BOTH)
@ExtendWith(OutputCaptureExtension.class)
class StreamQueueTrimTests {

	@Parameter
	RedisTopology topology;

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private QueueTestSupport support;

	private RedisQueueTemplate template;

	/** Another instance: another consumer of the same group. */
	private QueueTestSupport other;

	private StringRedisTemplate redis;

	@BeforeEach
	void setUp() {
		this.support = new QueueTestSupport(this.topology, new MicrometerRedkitMetrics(() -> this.meters),
				RedkitObservations.NONE, QueueStore.STREAM);
		this.template = this.support.template;
		this.other = new QueueTestSupport(this.topology, QueueStore.STREAM);
		this.redis = new StringRedisTemplate(this.topology.connectionFactory());
	}

	@AfterEach
	void close() {
		this.support.close();
		this.other.close();
	}

	@Test
	void aPendingEntryTrimmedAwayIsAcknowledgedByTheClaimThatFindsIt() {
		String queue = queue(Duration.ofMillis(200));
		String stream = stream(queue);
		this.template.sendAll(queue, IntStream.rangeClosed(1, 3).mapToObj((i) -> new Email("x", i)).toList());
		// taken by an instance that dies with them
		List<QueueMessage<Email>> lost = this.other.template.receive(queue, Email.class, 2);
		assertThat(lost).hasSize(2);
		// the writer trims the oldest entry, pending
		this.redis.opsForStream().trim(stream, 2);
		awaitIdle(stream, 2, 200);
		List<QueueMessage<Email>> taken = this.template.receive(queue, Email.class, 3);
		assertThat(taken).extracting((message) -> message.payload().number() + "/" + message.deliveries())
			.containsExactly("2/2", "3/1");
		assertThat(pending(stream)).as("the trimmed entry is no longer pending")
			.extracting((entry) -> entry.getIdAsString())
			.containsExactly(entry(taken.get(0)), entry(taken.get(1)));
		assertThat(this.template.stats(queue)).extracting(QueueStats::ready, QueueStats::inFlight)
			.containsExactly(0L, 2L);
		taken.forEach((message) -> assertThat(this.template.ack(message)).isTrue());
		assertThat(this.template.stats(queue)).extracting(QueueStats::ready, QueueStats::inFlight)
			.containsExactly(0L, 0L);
		assertThat(this.other.template.leaveGroup(queue)).as("the dead instance's consumer holds nothing").isTrue();
		assertThat(this.template.leaveGroup(queue)).isTrue();
	}

	@Test
	void aClaimOfAnAbandonedTrimmedEntryLeavesAHeldTrimmedEntryOfTheSameConsumerToItsHolder() {
		String queue = queue(Duration.ofSeconds(30));
		String stream = stream(queue);
		this.template.send(queue, new Email("held", 1));
		QueueMessage<Email> held = this.template.receive(queue, Email.class).orElseThrow();
		this.template.send(queue, new Email("abandoned", 2));
		QueueMessage<Email> abandoned = this.other.template.receive(queue, Email.class).orElseThrow();
		// the other instance died long ago: its take is past the visibility timeout (set
		// with Redis' own idle time, not waited for), while this instance's take is fresh
		this.support.expire(abandoned);
		// the writer deletes both entries: the held one first in the group's pending list
		this.redis.opsForStream().delete(stream, entry(held), entry(abandoned));
		assertThat(this.template.receive(queue, Email.class, 5)).isEmpty();
		if (!this.topology.server().version().startsWith("6.")) {
			// Redis 7.0+ drops every deleted entry its XAUTOCLAIM scans from the pending
			// list, idle or not: the held one too, whose ack then finds nothing to settle
			assertThat(pending(stream)).as("both dropped by Redis").isEmpty();
			return;
		}
		// Redis 6.2 claims the abandoned one as a nil: that one only is settled
		assertThat(pending(stream)).as("the abandoned entry is settled, the held one is still its holder's")
			.extracting((entry) -> entry.getIdAsString())
			.containsExactly(entry(held));
		assertThat(this.template.ack(held)).as("handled: its acknowledgement settles it").isTrue();
		assertThat(outcome("late-ack")).isNull();
		assertThat(this.template.stats(queue).inFlight()).isZero();
	}

	@Test
	void anEntryTrimmedWhileHeldIsReportedGoneByExtendAndItsAckIsNotALateOne() {
		String queue = queue(Duration.ofSeconds(30));
		this.template.send(queue, new Email("a", 1));
		QueueMessage<Email> held = this.template.receive(queue, Email.class).orElseThrow();
		this.redis.opsForStream().delete(stream(queue), entry(held));
		assertThat(this.template.extend(held, Duration.ofSeconds(30))).as("nothing is held any more").isFalse();
		assertThat(this.template.stats(queue).inFlight()).isZero();
		assertThat(this.template.ack(held)).isFalse();
		assertThat(outcome("late-ack")).as("not taken again: trimmed").isNull();
		assertThat(outcome("trimmed")).isNotNull().satisfies((counter) -> assertThat(counter.count()).isOne());
		assertThat(this.template.leaveGroup(queue)).isTrue();
	}

	@Test
	void anEntryTrimmedWhileHeldIsAcknowledgedByItsAckAsHandled() {
		String queue = queue(Duration.ofSeconds(30));
		this.template.send(queue, new Email("a", 1));
		QueueMessage<Email> held = this.template.receive(queue, Email.class).orElseThrow();
		this.redis.opsForStream().delete(stream(queue), entry(held));
		// handled: its acknowledgement settles what is left of it
		assertThat(this.template.ack(held)).isTrue();
		assertThat(outcome("late-ack")).isNull();
		assertThat(this.template.stats(queue).inFlight()).isZero();
	}

	@Test
	void aRetryOfAnEntryTrimmedWhileHeldIsNotARetry() {
		String queue = queue(Duration.ofSeconds(30));
		this.template.send(queue, new Email("a", 1));
		QueueMessage<Email> held = this.template.receive(queue, Email.class).orElseThrow();
		this.redis.opsForStream().delete(stream(queue), entry(held));
		assertThat(this.template.fail(held, new IllegalStateException("boom"))).isEqualTo(FailureOutcome.DROPPED);
		assertThat(outcome("retried")).isNull();
		assertThat(outcome("trimmed")).isNotNull().satisfies((counter) -> assertThat(counter.count()).isOne());
		assertThat(this.template.stats(queue).inFlight()).isZero();
		assertThat(this.template.deadLetters(queue, 10)).isEmpty();
	}

	@Test
	void aReleaseOfAnEntryTrimmedWhileHeldIsReportedGone() {
		String queue = queue(Duration.ofSeconds(30));
		this.template.send(queue, new Email("a", 1));
		QueueMessage<Email> held = this.template.receive(queue, Email.class).orElseThrow();
		this.redis.opsForStream().delete(stream(queue), entry(held));
		assertThat(this.template.release(held)).isFalse();
		assertThat(outcome("trimmed")).isNotNull().satisfies((counter) -> assertThat(counter.count()).isOne());
		assertThat(this.template.stats(queue).inFlight()).isZero();
	}

	@Test
	void aFloodOfTrimmedMessagesIsWarnedOnceAWhileNotOncePerMessage(CapturedOutput output) {
		String queue = queue(Duration.ofSeconds(30));
		this.template.sendAll(queue, IntStream.rangeClosed(1, 20).mapToObj((i) -> new Email("x", i)).toList());
		List<QueueMessage<Email>> held = this.template.receive(queue, Email.class, 20);
		assertThat(held).hasSize(20);
		// a writer trims the stream under its backlog: every held message is gone
		this.redis.opsForStream().trim(stream(queue), 0);
		held.forEach((message) -> assertThat(this.template.release(message)).isFalse());
		assertThat(output.toString()
			.lines()
			.filter((line) -> line.contains("of queue '" + queue + "'") && line.contains("keep the stream's length")))
			.as("WARN lines of 20 messages trimmed while held")
			.hasSize(1);
		assertThat(outcome("trimmed")).isNotNull()
			.satisfies((counter) -> assertThat(counter.count()).as("each counted").isEqualTo(20));
	}

	private String queue(Duration visibility) {
		String queue = this.support.queue(QueueOrder.FIFO, visibility, 5, CollapsePolicy.NONE);
		this.other.settings.put(queue, this.support.settings(queue));
		return queue;
	}

	private static String stream(String queue) {
		return QueueKeys.of(QueueTestSupport.KEYSPACE, queue).stream();
	}

	/** A stream queue's take is its entry's id. */
	private static String entry(QueueMessage<?> message) {
		return TakenMessage.of(message).take();
	}

	private Counter outcome(String outcome) {
		return this.meters.find("redkit.queue.messages").tag("outcome", outcome).counter();
	}

	private PendingMessages pending(String stream) {
		return this.redis.opsForStream().pending(stream, StreamQueueStore.GROUP, Range.unbounded(), 100);
	}

	private void awaitIdle(String stream, int count, long millis) {
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> pending(stream).stream()
				.filter((entry) -> entry.getElapsedTimeSinceLastDelivery().toMillis() >= millis)
				.count() == count);
	}

}
