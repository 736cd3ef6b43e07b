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
		this.support = new QueueTestSupport(RedisTopology.STANDALONE, QueueStore.LIST);
		RedisQueueTemplate template = template();
		String queue = this.support.queue();
		QueueKeys keys = QueueKeys.of(QueueTestSupport.KEYSPACE, queue);
		this.support.template.send(queue, new Email("x", 1));
		QueueMessage<Email> handled = template.receive(queue, Email.class).orElseThrow();
		this.redis.opsForValue().set(keys.delayed(), "not a sorted set");
		// trusted for the next second (HINT_MAX_AGE), whatever the machine's load
		long at = redisNow() + 999;
		this.redis.execute((RedisCallback<Object>) (connection) -> connection.execute("SET", keys.nextDue().getBytes(),
				Long.toString(at).getBytes(), "PXAT".getBytes(), Long.toString(at).getBytes()));
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> template.ackAndReceive(handled, Email.class));
		// still there, so there during the take: the take trusted it (a machine too
		// loaded to take within the second ran the untrusted path, which this test is
		// not about)
		assertThat(this.redis.hasKey(keys.nextDue())).as("the next-due hint, trusted by the take").isTrue();
		this.redis.delete(keys.delayed());
		assertThat(this.support.template.stats(queue).inFlight()).as("the error applied nothing").isOne();
		assertThat(template.ackAndReceive(handled, Email.class)).isEmpty();
		assertThat(this.meters.find("redkit.queue.messages").tag("outcome", "late-ack").counter())
			.as("the acknowledgement is not reported late")
			.isNull();
		assertThat(this.meters.get("redkit.queue.messages").tag("outcome", "processed").counter().count()).isOne();
		assertThat(this.support.template.stats(queue).inFlight()).isZero();
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
		this.support = new QueueTestSupport(RedisTopology.STANDALONE, store);
		RedisQueueTemplate template = template();
		String queue = this.support.queue();
		QueueKeys keys = QueueKeys.of(QueueTestSupport.KEYSPACE, queue);
		this.support.template.send(queue, new Email("x", 1));
		QueueMessage<Email> message = template.receive(queue, Email.class).orElseThrow();
		this.redis.opsForValue().set(keys.deadIndex(), "not a sorted set");
		assertThatExceptionOfType(Exception.class)
			.isThrownBy(() -> template.failAsync(message, new IllegalStateException("boom"), true).join());
		this.redis.delete(keys.deadIndex());
		assertThat(this.support.template.stats(queue).inFlight()).as("the error applied nothing").isOne();
		assertThat(template.failAsync(message, new IllegalStateException("boom"), true).join())
			.isEqualTo(FailureOutcome.DEAD_LETTERED);
		assertThat(this.support.template.deadLetters(queue, 10)).hasSize(1);
	}

	/**
	 * A failure that retries meets another writer's value where it schedules the retry
	 * (the list store's delayed set, or its hint; the stream store's set of takes given
	 * back): it must change nothing, and retry once the key is fixed.
	 */
	@ParameterizedTest
	@EnumSource(QueueStore.class)
	void aFailureThatRetriesAppliesNothingBeforeAForeignKey(QueueStore store) {
		this.support = new QueueTestSupport(RedisTopology.STANDALONE, store);
		RedisQueueTemplate template = template();
		String queue = this.support.queue();
		QueueKeys keys = QueueKeys.of(QueueTestSupport.KEYSPACE, queue);
		this.support.template.sendAll(queue, IntStream.rangeClosed(1, 2).mapToObj((i) -> new Email("x", i)).toList());
		List<QueueMessage<Email>> taken = template.receive(queue, Email.class, 2);
		List<String> foreign = (store == QueueStore.LIST) ? List.of(keys.delayed(), keys.nextDue())
				: List.of(keys.claimDue());
		for (int i = 0; i < foreign.size(); i++) {
			QueueMessage<Email> message = taken.get(i);
			this.redis.delete(foreign.get(i));
			this.redis.opsForHash().put(foreign.get(i), "a", "hash");
			assertThatExceptionOfType(DataAccessException.class)
				.isThrownBy(() -> template.fail(message, new IllegalStateException("boom")));
			this.redis.delete(foreign.get(i));
			assertThat(template.fail(message, new IllegalStateException("boom"))).as(foreign.get(i))
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
		this.support = new QueueTestSupport(RedisTopology.STANDALONE, QueueStore.LIST);
		RedisQueueTemplate template = template();
		String queue = this.support.queue();
		QueueKeys keys = QueueKeys.of(QueueTestSupport.KEYSPACE, queue);
		this.support.template.send(queue, new Email("x", 1));
		QueueMessage<Email> message = template.receive(queue, Email.class).orElseThrow();
		this.redis.opsForValue().set(keys.ready(), "not a list");
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> template.release(message));
		this.redis.delete(keys.ready());
		assertThat(this.support.template.stats(queue).inFlight()).as("the error applied nothing").isOne();
		assertThat(template.release(message)).isTrue();
		assertThat(this.support.template.stats(queue)).extracting(QueueStats::ready, QueueStats::inFlight)
			.containsExactly(1L, 0L);
	}

	/**
	 * An extend that moves a deadline earlier (a shorter visibility) meets a hash at the
	 * hint: it moved the deadline before it failed. It must change nothing.
	 */
	@Test
	void anExtendAppliesNothingBeforeAForeignHint() {
		this.support = new QueueTestSupport(RedisTopology.STANDALONE, QueueStore.LIST);
		RedisQueueTemplate template = template();
		String queue = this.support.queue();
		QueueKeys keys = QueueKeys.of(QueueTestSupport.KEYSPACE, queue);
		this.support.template.send(queue, new Email("x", 1));
		QueueMessage<Email> message = template.receive(queue, Email.class).orElseThrow();
		String entry = TakenMessage.of(message).inFlightEntry();
		Double deadline = this.redis.opsForZSet().score(keys.inFlight(), entry);
		this.redis.delete(keys.nextDue());
		this.redis.opsForHash().put(keys.nextDue(), "a", "hash");
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> template.extend(message, Duration.ofSeconds(1)));
		assertThat(this.redis.opsForZSet().score(keys.inFlight(), entry)).as("the error applied nothing")
			.isEqualTo(deadline);
		this.redis.delete(keys.nextDue());
		assertThat(template.extend(message, Duration.ofSeconds(1))).isTrue();
	}

	private RedisQueueTemplate template() {
		return new RedisQueueTemplate(new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory()),
				QueueTestSupport.KEYSPACE, QueueTestSupport.JSON, this.support::settings,
				new MicrometerRedkitMetrics(() -> this.meters), RedkitObservations.NONE);
	}

	private long redisNow() {
		Long now = this.redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
		return now;
	}

}
