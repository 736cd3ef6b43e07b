package io.github.redkit.queue.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.github.redkit.queue.CollapsePolicy;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueOrder;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.internal.QueueTestSupport.Email;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The stream store across a rollback of Redis' state (a restart on an older snapshot, a
 * failover to a replica that was behind), made here by restoring the queue's stream from
 * a {@code DUMP} taken before a take: the consumer group's pending list, and with it
 * every delivery count, is the dump's (issue 46).
 */
class StreamQueueRollbackTests {

	private final QueueTestSupport support = new QueueTestSupport(RedisTopology.STANDALONE, QueueStore.STREAM);

	private final RedisQueueTemplate template = this.support.template;

	private final RedisTemplate<String, String> redis = new org.springframework.data.redis.core.StringRedisTemplate(
			RedisTopology.STANDALONE.connectionFactory());

	@AfterEach
	void close() {
		this.support.close();
	}

	/**
	 * What docs/queues.md says of a rollback: the counts come back with the state, and a
	 * take is its entry id and delivery count, so the take made after the snapshot and
	 * the take of the same count after the rollback are one take: its first holder can
	 * still settle, extend or release it (on a list it is told it lost the message), and
	 * a release gives its delivery back, once more than {@code max-attempts} in all.
	 */
	@Test
	void aRollbackRestoresTheDeliveryCountsAndTheTakeBeforeItIsTheTakeOfTheSameCountAfterIt() {
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofSeconds(30), 3, CollapsePolicy.NONE);
		String stream = QueueKeys.of(QueueTestSupport.KEYSPACE, queue).stream();
		this.template.send(queue, new Email("a", 1));
		QueueMessage<Email> first = this.template.receive(queue, Email.class).orElseThrow();
		assertThat(this.template.fail(first, new IllegalStateException("first"))).isEqualTo(FailureOutcome.RETRIED);
		byte[] snapshot = this.redis.dump(stream);
		QueueMessage<Email> lost = takeAgain(queue);
		assertThat(lost.deliveries()).isEqualTo(2);
		this.redis.restore(stream, snapshot, 0, TimeUnit.MILLISECONDS, true);
		QueueMessage<Email> after = takeAgain(queue);
		assertThat(after.deliveries()).as("the restored count, one more").isEqualTo(2);
		assertThat(this.template.release(lost)).as("the take the rollback undid holds the take after it").isTrue();
		QueueMessage<Email> released = takeAgain(queue);
		assertThat(released.deliveries()).as("its delivery given back").isEqualTo(2);
		assertThat(this.template.ack(released)).isTrue();
	}

	/**
	 * A rollback while Redis' clock is behind the stream's last id (a step back, as soak
	 * seed 5713140215705645081 made): XADD then gives the next message the entry id a
	 * message sent after the snapshot had, and the take of it the same delivery count and
	 * consumer. The holder of the message the rollback undid must settle nothing of the
	 * other one: an acknowledgement deleted it, a dead letter replaced it (issue 46).
	 */
	@ParameterizedTest
	@ValueSource(strings = { "ack", "dead-letter", "ack with the next take", "extend", "release" })
	void aTakeTheRollbackUndidSettlesNothingOfTheMessageSentAfterItUnderTheSameEntryId(String settlement) {
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofSeconds(30), 1, CollapsePolicy.NONE);
		String stream = QueueKeys.of(QueueTestSupport.KEYSPACE, queue).stream();
		this.template.send(queue, new Email("first", 1));
		assertThat(this.template.ack(takeAgain(queue))).isTrue();
		// Redis' clock a minute behind the stream's last id: XADD counts on from that id
		Long now = this.redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
		this.redis.execute((RedisCallback<Object>) (connection) -> connection.execute("XSETID",
				stream.getBytes(StandardCharsets.UTF_8), ((now + 60_000) + "-0").getBytes(StandardCharsets.UTF_8)));
		byte[] snapshot = this.redis.dump(stream);
		this.template.send(queue, new Email("undone", 2));
		QueueMessage<Email> undone = takeAgain(queue);
		this.redis.restore(stream, snapshot, 0, TimeUnit.MILLISECONDS, true);
		this.template.send(queue, new Email("after", 3));
		QueueMessage<Email> after = takeAgain(queue);
		assertThat(after.payload()).isEqualTo(new Email("after", 3));
		assertThat(TakenMessage.of(after).take()).as("the same entry id").isEqualTo(TakenMessage.of(undone).take());
		assertThat(after.deliveries()).isEqualTo(undone.deliveries());
		switch (settlement) {
			case "ack" -> assertThat(this.template.ack(undone)).as("the undone take acknowledged").isFalse();
			case "dead-letter" -> assertThat(this.template.fail(undone, new IllegalStateException("undone")))
				.isEqualTo(FailureOutcome.NOT_OWNED);
			case "ack with the next take" ->
				assertThat(this.template.ackAndReceive(List.of(undone), queue, Email.class, 1)).isEmpty();
			case "extend" -> assertThat(this.template.extend(undone, Duration.ofSeconds(20))).isFalse();
			default -> assertThat(this.template.release(undone)).isFalse();
		}
		assertThat(this.template.deadLetters(queue, 10)).as("nothing dead-lettered").isEmpty();
		assertThat(this.template.ack(after)).as("the message sent after the rollback still held").isTrue();
	}

	private QueueMessage<Email> takeAgain(String queue) {
		return await().atMost(Duration.ofSeconds(5))
			.until(() -> this.template.receive(queue, Email.class), Optional::isPresent)
			.orElseThrow();
	}

}
