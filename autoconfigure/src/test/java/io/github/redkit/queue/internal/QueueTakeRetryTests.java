package io.github.redkit.queue.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.internal.QueueTestSupport.Email;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.github.redkit.testsupport.TcpProxy;
import io.github.redkit.testsupport.RedisServer;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A take that acknowledges handled messages, whose answer never came (the client's
 * command timeout passed while the link was slow, then the connection was lost), is sent
 * again with the same acknowledgements, as a listener's consumer does after a failed take
 * (issue 46): Redis applied the first, so the second must neither report its
 * acknowledgements late nor leave what the first took in flight for nobody. On every
 * server family: the take's record and the stream commands' replies are the server's.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.FAMILIES)
class QueueTakeRetryTests {

	private final RedisTopology topology;

	private final TcpProxy link;

	/**
	 * The client's command timeout: shorter than the link's delay, longer than a loaded
	 * machine's answers.
	 */
	private final LettuceConnectionFactory factory;

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private QueueTestSupport support;

	/** A factory through the link that reconnects late, and its client resources. */
	private @Nullable LettuceConnectionFactory lateFactory;

	private @Nullable ClientResources lateResources;

	QueueTakeRetryTests(RedisTopology topology) {
		this.topology = topology;
		this.link = TcpProxy.start(topology.server().port());
		this.factory = this.link.connectionFactory(Duration.ofSeconds(2));
	}

	@AfterEach
	void close() {
		this.link.heal();
		this.support.close();
		this.factory.destroy();
		if (this.lateFactory != null) {
			this.lateFactory.destroy();
		}
		if (this.lateResources != null) {
			this.lateResources.shutdown();
		}
		this.link.close();
	}

	@ParameterizedTest
	@EnumSource(QueueStore.class)
	void aTakeSentAgainWithTheAcknowledgementsOfOneNotAnsweredIsAnsweredWhatTheFirstDid(QueueStore store) {
		RedisQueueTemplate template = templateThrough(this.factory, store);
		String queue = holding(this.support.queue(), 4);
		QueueMessage<Email> handled = template.receive(queue, Email.class).orElseThrow();
		this.link.delay(Duration.ofMillis(2500));
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> template.ackAndReceive(handled, Email.class));
		// Redis applies it when the delay lets it through: the first message
		// acknowledged,
		// the second taken
		await().atMost(Duration.ofSeconds(20))
			.until(() -> this.support.template.stats(queue), (stats) -> stats.inFlight() == 1 && stats.ready() == 2);
		// the first answer, still on its way back, is lost with the connection: the
		// caller sends the take again on a new one
		this.link.heal();
		this.link.cut();
		QueueMessage<Email> next = template.ackAndReceive(handled, Email.class).orElseThrow();
		assertThat(next.payload().number()).as("what the first take took, handed out").isEqualTo(2);
		assertThat(next.deliveries()).isOne();
		assertThat(this.meters.find("redkit.queue.messages").tag("outcome", "late-ack").counter())
			.as("the acknowledgement the first take applied is not reported late")
			.isNull();
		assertThat(this.meters.get("redkit.queue.messages").tag("outcome", "processed").counter().count()).isOne();
		assertThat(this.support.template.stats(queue)).extracting(QueueStats::ready, QueueStats::inFlight)
			.containsExactly(2L, 1L);
		assertThat(template.ack(next)).isTrue();
		assertThat(template.receive(queue, Email.class, 10)).extracting((message) -> message.payload().number())
			.containsExactly(3, 4);
	}

	/**
	 * A stream take that acknowledges, then fails after its acknowledgements were applied
	 * (here the claim scan's key of takes given back holds a string: another writer's),
	 * is not answered (the client's command timeout passed while the link was slow); sent
	 * again under its name once the key is fixed, it must be answered with what the first
	 * one acknowledged (review46d finding 5: the record was written only at the end, so
	 * the second ran as new and reported the acknowledgement late).
	 */
	@Test
	void aStreamTakeThatFailedAfterItsAcknowledgementsIsAnsweredThemWhenSentAgain() {
		RedisQueueTemplate template = templateThrough(this.factory, QueueStore.STREAM);
		String queue = holding(this.support.queue(), 3);
		QueueMessage<Email> handled = template.receive(queue, Email.class).orElseThrow();
		QueueKeys keys = QueueKeys.of(QueueTestSupport.KEYSPACE, queue);
		StringRedisTemplate redis = new StringRedisTemplate(this.topology.connectionFactory());
		// the take scans (no cursor), reaches the end of the pending entries and reads
		// the
		// key of takes given back: an error after the acknowledgement
		redis.delete(keys.claimCursor());
		redis.opsForValue().set(keys.claimDue(), "not a sorted set");
		this.link.delay(Duration.ofMillis(2500));
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> template.ackAndReceive(handled, Email.class));
		await().atMost(Duration.ofSeconds(20)).until(() -> this.support.template.stats(queue).inFlight() == 0);
		this.link.heal();
		this.link.cut();
		redis.delete(keys.claimDue());
		template.ackAndReceive(handled, Email.class);
		assertThat(this.meters.find("redkit.queue.messages").tag("outcome", "late-ack").counter())
			.as("the acknowledgement the first take applied is not reported late")
			.isNull();
		assertThat(this.meters.get("redkit.queue.messages").tag("outcome", "processed").counter().count()).isOne();
	}

	/**
	 * A listener consumer's take that acknowledges is applied, its answer lost with the
	 * connection; the take fails at the client's command timeout (1.5 s), the client
	 * reconnects (2 s) and the consumer sends the take again after its poll-timeout (1.8
	 * s): Redis answers the messages the first take delivered (review46c, finding 3),
	 * whose visibility timeout (4.5 s) ran from their first delivery, not from the take
	 * sent again. Timed from the take sent again (3.3 s), the first message's listener
	 * would start with no extend (a third of the timeout not yet passed) and its
	 * heartbeat's first extend would come after the real deadline (3.3 + 1.5 s): another
	 * consumer would take the message from a listener still running it.
	 * <p>
	 * The consumer counts the batch's age back from when it sent the take again, so the
	 * time that take waits for a reconnect counts twice: once in the age Redis reports,
	 * once as the delay of its answer. It is sent once the client reconnected (1.3 s to
	 * spare for a late reconnect), so the consumer starts the message if it has the
	 * answer and extended the message within 1.2 s of sending the take again; else it
	 * leaves the batch, which may have been delivered elsewhere. Before (a 3 s timeout, 2
	 * s, the take sent again after 0.1 s and waiting for a reconnect after 2.2 s) that
	 * margin was 0.7 s less twice the reconnect's lateness, which a reconnect 0.3 s late
	 * at load 10 used up: the batch was left in 2 runs of 30 (and with 6 s, 3.8 s and 4.2
	 * s in 2 of 40, its reconnect about 1 s late).
	 */
	@ParameterizedTest
	@EnumSource(QueueStore.class)
	void aListenerKeepsAMessageATakeSentAgainHandsOverTimedFromItsFirstDelivery(QueueStore store) {
		Duration visibility = Duration.ofMillis(4500);
		this.lateResources = ClientResources.builder().reconnectDelay(Delay.constant(Duration.ofMillis(2000))).build();
		this.lateFactory = this.link.connectionFactory(Duration.ofMillis(1500), this.lateResources);
		RedisQueueTemplate template = templateThrough(this.lateFactory, store);
		String queue = holding(this.support.prefetchingQueue(visibility, 2), 4);
		byte[] take = takeSha(store);
		AtomicLong cutTakeSent = new AtomicLong();
		AtomicBoolean secondStarted = new AtomicBoolean();
		AtomicBoolean thirdStarted = new AtomicBoolean();
		AtomicBoolean thirdHandled = new AtomicBoolean();
		DefaultQueueListenerContainer container = this.support.container(template, queue, 1,
				QueueTestSupport.handler(Email.class, (payload) -> {
					int number = ((Email) payload).number();
					if (number == 2) {
						// the take after it: acknowledges the first two, takes the next
						// two
						cutTakeSent.set(redisNow());
						this.link.cutAfterNextWrite(take);
						secondStarted.set(true);
					}
					else if (number == 3) {
						thirdStarted.set(true);
						// past its first deadline on Redis' clock (that take ran after
						// the time read before it was sent)
						long until = cutTakeSent.get() + visibility.toMillis() + 500;
						await().atMost(Duration.ofSeconds(20))
							.pollInterval(Duration.ofMillis(50))
							.until(() -> redisNow() >= until);
						thirdHandled.set(true);
					}
				}), Duration.ofSeconds(5), Duration.ofMillis(1800));
		container.start();
		RedisQueueTemplate other = this.support.otherInstance();
		List<Integer> takenElsewhere = new CopyOnWriteArrayList<>();
		try {
			// from when the listener's first batch is in hand
			await().atMost(Duration.ofSeconds(10)).until(secondStarted::get);
			await("message 3 handled (not left as past its visibility timeout, nor lost)")
				.atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(20))
				.until(() -> {
					boolean handled = thirdHandled.get();
					other.receive(queue, Email.class).ifPresent((message) -> {
						takenElsewhere.add(message.payload().number());
						other.ack(message);
					});
					return handled;
				});
		}
		finally {
			// a consumer left running would retry on the destroyed factory for good
			container.stop();
		}
		assertThat(this.link.cutsAfterWrite(take)).isOne();
		assertThat(thirdStarted).as("the first message the take sent again handed over was started").isTrue();
		assertThat(takenElsewhere).as("taken by another consumer while its listener ran").doesNotContain(3);
	}

	/**
	 * A take that acknowledges is applied and its connection closes before the answer
	 * came (Lettuce does not reconnect: it fails the call with "Connection closed"): the
	 * take is not answered, so the next one goes under its name and is answered what the
	 * first did, its acknowledgement not reported late and the message it took handed
	 * over (review34 finding 3: a lost connection was taken for an error Redis answered).
	 */
	@ParameterizedTest
	@EnumSource(QueueStore.class)
	void aTakeWhoseConnectionClosedIsNotAnswered(QueueStore store) {
		this.lateFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(RedisServer.HOST, this.link.port()),
				LettuceClientConfiguration.builder()
					.clientOptions(ClientOptions.builder().autoReconnect(false).build())
					.commandTimeout(Duration.ofSeconds(5))
					.build());
		this.lateFactory.afterPropertiesSet();
		this.lateFactory.start();
		RedisQueueTemplate template = templateThrough(this.lateFactory, store);
		String queue = holding(this.support.queue(), 3);
		QueueMessage<Email> handled = template.receive(queue, Email.class).orElseThrow();
		this.link.cutAfterNextWrite(takeSha(store));
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> template.ackAndReceive(handled, Email.class));
		assertThat(this.link.cutsAfterWrite()).isOne();
		// a connection that does not reconnect is made anew (as with the factory's
		// validation)
		this.lateFactory.resetConnection();
		QueueMessage<Email> next = template.ackAndReceive(handled, Email.class).orElseThrow();
		assertThat(next.payload().number()).as("what the first take took, handed out").isEqualTo(2);
		assertThat(this.meters.find("redkit.queue.messages").tag("outcome", "late-ack").counter())
			.as("the acknowledgement the first take applied is not reported late")
			.isNull();
		assertThat(this.meters.get("redkit.queue.messages").tag("outcome", "processed").counter().count()).isOne();
		assertThat(this.support.template.stats(queue)).extracting(QueueStats::ready, QueueStats::inFlight)
			.containsExactly(1L, 1L);
	}

	/**
	 * A list queue's acknowledgement and failure whose answers are lost with the
	 * connection, which Lettuce sends again once it reconnected: Redis answers each copy
	 * as it did the first (review34 finding 4: the copy found the take settled and
	 * answered "lost", a false late acknowledgement and a failure reported not owned).
	 */
	@Test
	void aListAckAndFailSentAgainAfterAReconnectAnswerAsTheFirstDid() {
		RedisQueueTemplate template = templateThrough(this.factory, QueueStore.LIST);
		String queue = holding(this.support.queue(), 4);
		// both scripts known to Redis first: the cut then comes after an EVALSHA Redis
		// applied, not after one it answered NOSCRIPT
		QueueMessage<Email> warmAck = template.receive(queue, Email.class).orElseThrow();
		QueueMessage<Email> warmFail = template.receive(queue, Email.class).orElseThrow();
		assertThat(template.ack(warmAck)).isTrue();
		assertThat(template.fail(warmFail, new IllegalStateException("boom"))).isEqualTo(FailureOutcome.RETRIED);
		QueueMessage<Email> first = template.receive(queue, Email.class).orElseThrow();
		QueueMessage<Email> second = template.receive(queue, Email.class).orElseThrow();
		this.link.cutAfterNextWrite(sha("queue_ack"));
		assertThat(template.ack(first)).as("acknowledged by the first copy").isTrue();
		this.link.cutAfterNextWrite(sha("queue_fail"));
		assertThat(template.fail(second, new IllegalStateException("boom"))).as("retried by the first copy")
			.isEqualTo(FailureOutcome.RETRIED);
		assertThat(this.link.cutsAfterWrite()).isEqualTo(2);
		assertThat(this.meters.find("redkit.queue.messages").tag("outcome", "late-ack").counter())
			.as("no acknowledgement reported late")
			.isNull();
		assertThat(this.meters.get("redkit.queue.messages").tag("outcome", "processed").counter().count()).isEqualTo(2);
		assertThat(this.support.template.stats(queue).inFlight()).isZero();
	}

	/**
	 * A list queue's give-back whose answer is lost with the connection, which Lettuce
	 * sends again once it reconnected: its record answers the copy as the first was
	 * answered (released), and the message is in the queue once (review35 finding 6).
	 */
	@Test
	void aListReleaseSentAgainAfterAReconnectAnswersAsTheFirstDid() {
		this.support = new QueueTestSupport(this.topology, QueueStore.LIST);
		RedisQueueTemplate template = new RedisQueueTemplate(new RedisScriptRunner(this.factory),
				QueueTestSupport.KEYSPACE, QueueTestSupport.JSON, this.support::settings,
				new MicrometerRedkitMetrics(() -> this.meters), RedkitObservations.NONE);
		String queue = this.support.queue();
		this.support.template.sendAll(queue, IntStream.rangeClosed(1, 2).mapToObj((i) -> new Email("x", i)).toList());
		// the script known to Redis first: the cut then comes after an EVALSHA Redis
		// applied, not after one it answered NOSCRIPT
		assertThat(template.release(template.receive(queue, Email.class).orElseThrow())).isTrue();
		QueueMessage<Email> taken = template.receive(queue, Email.class).orElseThrow();
		this.link.cutAfterNextWrite(sha("queue_release"));
		assertThat(template.release(taken)).as("released by the first copy").isTrue();
		assertThat(this.link.cutsAfterWrite()).isOne();
		assertThat(this.support.template.stats(queue)).extracting(QueueStats::ready, QueueStats::inFlight)
			.containsExactly(2L, 0L);
	}

	/**
	 * A take that acknowledges and meets another writer's value at a key of its queue (a
	 * string where the list store's delayed set or the stream store's set of takes given
	 * back is) is answered with an error; once the key is fixed, the next take
	 * acknowledges the same message: none is reported late and nothing is lost (review34
	 * finding 5: the list take had applied the acknowledgement before the error, the
	 * stream take had recorded it under a name the next take did not use).
	 */
	@ParameterizedTest
	@EnumSource(QueueStore.class)
	void aTakeAnsweredWithAnErrorReportsNoAcknowledgementLate(QueueStore store) {
		RedisQueueTemplate template = templateThrough(this.factory, store);
		String queue = holding(this.support.queue(), 3);
		QueueMessage<Email> handled = template.receive(queue, Email.class).orElseThrow();
		QueueKeys keys = QueueKeys.of(QueueTestSupport.KEYSPACE, queue);
		StringRedisTemplate redis = new StringRedisTemplate(this.topology.connectionFactory());
		// the list take reaps (no hint) and reads the delayed set; the stream take scans
		// (no cursor) to the end of the pending entries and reads the takes given back
		redis.delete((store == QueueStore.LIST) ? keys.nextDue() : keys.claimCursor());
		String foreign = (store == QueueStore.LIST) ? keys.delayed() : keys.claimDue();
		redis.opsForValue().set(foreign, "not a sorted set");
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> template.ackAndReceive(handled, Email.class));
		redis.delete(foreign);
		template.ackAndReceive(handled, Email.class);
		assertThat(this.meters.find("redkit.queue.messages").tag("outcome", "late-ack").counter())
			.as("the acknowledgement is not reported late")
			.isNull();
		assertThat(this.meters.get("redkit.queue.messages").tag("outcome", "processed").counter().count()).isOne();
		assertThat(this.support.template.stats(queue)).as("nothing lost: 2 and 3 ready or in flight")
			.satisfies((stats) -> assertThat(stats.ready() + stats.inFlight()).isEqualTo(2));
	}

	/**
	 * A template through the given factory (one through the link) on the queues of a new
	 * support of that store, which counts what it does in this test's meters.
	 */
	private RedisQueueTemplate templateThrough(LettuceConnectionFactory factory, QueueStore store) {
		this.support = new QueueTestSupport(this.topology, store);
		return new RedisQueueTemplate(new RedisScriptRunner(factory), QueueTestSupport.KEYSPACE, QueueTestSupport.JSON,
				this.support::settings, new MicrometerRedkitMetrics(() -> this.meters), RedkitObservations.NONE);
	}

	// the queue, once e-mails 1 to `messages` are sent to it on the shared server
	private String holding(String queue, int messages) {
		this.support.template.sendAll(queue,
				IntStream.rangeClosed(1, messages).mapToObj((i) -> new Email("x", i)).toList());
		return queue;
	}

	private static byte[] takeSha(QueueStore store) {
		return sha((store == QueueStore.LIST) ? "queue_claim" : "queue_stream_take");
	}

	private static byte[] sha(String script) {
		return LuaScript.load(script, Object.class).redisScript().getSha1().getBytes(StandardCharsets.US_ASCII);
	}

	private long redisNow() {
		Long now = new StringRedisTemplate(this.topology.connectionFactory())
			.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
		return now;
	}

}
