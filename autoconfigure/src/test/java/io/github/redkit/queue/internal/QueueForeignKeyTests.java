package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.internal.QueueTestSupport.Email;
import io.github.redkit.testsupport.RedisTopology;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Another writer's value at a key of a queue (a string where a set is, a hash where the
 * hint is) fails a queue script with {@code WRONGTYPE} before it changes anything, as
 * docs/queues.md promises of an error reply (review35, findings 1 and 2): a take, a
 * failure, a give-back or an extend that failed after its first write left
 * acknowledgements applied and unreported, or a message out of flight and lost.
 */
class QueueForeignKeyTests {

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private final StringRedisTemplate redis = new StringRedisTemplate(RedisTopology.STANDALONE.connectionFactory());

	private QueueTestSupport support;

	// this test's own template, whose meters it reads
	private RedisQueueTemplate template;

	private String queue;

	private QueueKeys keys;

	@AfterEach
	void close() {
		this.support.close();
	}

	/**
	 * A take with a trusted next-due hint and nothing ready reads the delayed set to
	 * answer how long to wait: a string there failed it after it had applied its
	 * acknowledgement, so the next take under its name found no record and reported the
	 * acknowledgement late (1, not 0).
	 */
	@Test
	void aTakeWithATrustedHintAndNothingReadyAppliesNothingBeforeAForeignDelayedSet() {
		QueueMessage<Email> handled = sentAndTaken(QueueStore.LIST);
		this.redis.opsForValue().set(this.keys.delayed(), "not a sorted set");
		// trusted for the next second (HINT_MAX_AGE), whatever the machine's load
		long at = redisNow() + 999;
		this.redis
			.execute((RedisCallback<Object>) (connection) -> connection.execute("SET", this.keys.nextDue().getBytes(),
					Long.toString(at).getBytes(), "PXAT".getBytes(), Long.toString(at).getBytes()));
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> this.template.ackAndReceive(handled, Email.class));
		// still there, so there during the take: the take trusted it (a machine too
		// loaded to take within the second ran the untrusted path, which this test is
		// not about)
		assertThat(this.redis.hasKey(this.keys.nextDue())).as("the next-due hint, trusted by the take").isTrue();
		this.redis.delete(this.keys.delayed());
		assertThat(this.support.template.stats(this.queue).inFlight()).as("the error applied nothing").isOne();
		assertThat(this.template.ackAndReceive(handled, Email.class)).isEmpty();
		assertThat(this.meters.find("redkit.queue.messages").tag("outcome", "late-ack").counter())
			.as("the acknowledgement is not reported late")
			.isNull();
		assertThat(this.meters.get("redkit.queue.messages").tag("outcome", "processed").counter().count()).isOne();
		assertThat(this.support.template.stats(this.queue).inFlight()).isZero();
	}

	/**
	 * A failure that dead-letters meets a string at the dead-letter index: it used to
	 * take the message out of flight first and fail after, so that it was neither in
	 * flight nor dead-lettered (lost). It must fail having changed nothing, and
	 * dead-letter it once the key is fixed.
	 */
	@ParameterizedTest
	@EnumSource(QueueStore.class)
	void aFailureThatDeadLettersAppliesNothingBeforeAForeignDeadLetterIndex(QueueStore store) {
		QueueMessage<Email> message = sentAndTaken(store);
		this.redis.opsForValue().set(this.keys.deadIndex(), "not a sorted set");
		assertThatExceptionOfType(Exception.class)
			.isThrownBy(() -> this.template.failAsync(message, new IllegalStateException("boom"), true).join());
		this.redis.delete(this.keys.deadIndex());
		assertThat(this.support.template.stats(this.queue).inFlight()).as("the error applied nothing").isOne();
		assertThat(this.template.failAsync(message, new IllegalStateException("boom"), true).join())
			.isEqualTo(FailureOutcome.DEAD_LETTERED);
		assertThat(this.support.template.deadLetters(this.queue, 10)).hasSize(1);
	}

	/**
	 * A failure that retries meets another writer's value where it schedules the retry
	 * (the list store's delayed set, or its hint; the stream store's set of takes given
	 * back): it must change nothing, and retry once the key is fixed.
	 */
	@ParameterizedTest
	@EnumSource(QueueStore.class)
	void aFailureThatRetriesAppliesNothingBeforeAForeignKey(QueueStore store) {
		open(store);
		this.support.template.sendAll(this.queue,
				IntStream.rangeClosed(1, 2).mapToObj((i) -> new Email("x", i)).toList());
		List<QueueMessage<Email>> taken = this.template.receive(this.queue, Email.class, 2);
		List<String> foreign = (store == QueueStore.LIST) ? List.of(this.keys.delayed(), this.keys.nextDue())
				: List.of(this.keys.claimDue());
		for (int i = 0; i < foreign.size(); i++) {
			QueueMessage<Email> message = taken.get(i);
			this.redis.delete(foreign.get(i));
			this.redis.opsForHash().put(foreign.get(i), "a", "hash");
			assertThatExceptionOfType(DataAccessException.class)
				.isThrownBy(() -> this.template.fail(message, new IllegalStateException("boom")));
			this.redis.delete(foreign.get(i));
			assertThat(this.template.fail(message, new IllegalStateException("boom"))).as(foreign.get(i))
				.isEqualTo(FailureOutcome.RETRIED);
		}
	}

	/**
	 * A give-back meets a string at the ready list: it took the message out of flight
	 * before it failed (lost). It must change nothing, and give it back once the key is
	 * fixed.
	 */
	@Test
	void aGiveBackAppliesNothingBeforeAForeignReadyList() {
		QueueMessage<Email> message = sentAndTaken(QueueStore.LIST);
		this.redis.opsForValue().set(this.keys.ready(), "not a list");
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> this.template.release(message));
		this.redis.delete(this.keys.ready());
		assertThat(this.support.template.stats(this.queue).inFlight()).as("the error applied nothing").isOne();
		assertThat(this.template.release(message)).isTrue();
		assertThat(this.support.template.stats(this.queue)).extracting(QueueStats::ready, QueueStats::inFlight)
			.containsExactly(1L, 0L);
	}

	/**
	 * An extend that moves a deadline earlier (a shorter visibility) meets a hash at the
	 * hint: it moved the deadline before it failed. It must change nothing.
	 */
	@Test
	void anExtendAppliesNothingBeforeAForeignHint() {
		QueueMessage<Email> message = sentAndTaken(QueueStore.LIST);
		String entry = TakenMessage.of(message).inFlightEntry();
		Double deadline = this.redis.opsForZSet().score(this.keys.inFlight(), entry);
		this.redis.delete(this.keys.nextDue());
		this.redis.opsForHash().put(this.keys.nextDue(), "a", "hash");
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> this.template.extend(message, Duration.ofSeconds(1)));
		assertThat(this.redis.opsForZSet().score(this.keys.inFlight(), entry)).as("the error applied nothing")
			.isEqualTo(deadline);
		this.redis.delete(this.keys.nextDue());
		assertThat(this.template.extend(message, Duration.ofSeconds(1))).isTrue();
	}

	/** A new queue of a store, with this test's template and the queue's keys. */
	private void open(QueueStore store) {
		this.support = new QueueTestSupport(RedisTopology.STANDALONE, store);
		this.template = new RedisQueueTemplate(new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory()),
				QueueTestSupport.KEYSPACE, QueueTestSupport.JSON, this.support::settings,
				new MicrometerRedkitMetrics(() -> this.meters), RedkitObservations.NONE);
		this.queue = this.support.queue();
		this.keys = QueueKeys.of(QueueTestSupport.KEYSPACE, this.queue);
	}

	/** A new queue of a store, one message sent and taken by this test's template. */
	private QueueMessage<Email> sentAndTaken(QueueStore store) {
		open(store);
		this.support.template.send(this.queue, new Email("x", 1));
		return this.template.receive(this.queue, Email.class).orElseThrow();
	}

	private long redisNow() {
		Long now = this.redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
		return now;
	}

}
