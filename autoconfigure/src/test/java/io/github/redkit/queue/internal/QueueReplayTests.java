package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.CollapsePolicy;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueOrder;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.internal.QueueTestSupport.Email;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.github.redkit.testsupport.ScannedKeys;
import io.github.redkit.testsupport.TcpProxy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Queue calls applied once when the client sends them again: the connection is cut after
 * Redis applied a call and before its answer came back
 * ({@link TcpProxy#cutAfterNextWrite()}), so Lettuce reconnects and sends the same call
 * again (issue 43). A message is enqueued, scheduled, taken and re-queued once, and the
 * caller gets the first application's answer. On every server family: what a script
 * answers when sent again is the server's.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.FAMILIES)
class QueueReplayTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private final RedisTopology topology;

	private final TcpProxy link;

	private final LettuceConnectionFactory factory;

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	/** Straight to the server, to look at what the cut calls left. */
	private final QueueTestSupport support;

	private final RedisQueueTemplate template;

	private final RedisQueueTemplate direct;

	QueueReplayTests(RedisTopology topology) {
		this.topology = topology;
		this.link = TcpProxy.start(topology.server().port());
		this.factory = this.link.connectionFactory(TIMEOUT);
		this.support = new QueueTestSupport(topology);
		this.template = new RedisQueueTemplate(new RedisScriptRunner(this.factory), QueueTestSupport.KEYSPACE,
				QueueTestSupport.JSON, this.support::settings, new MicrometerRedkitMetrics(() -> this.meters),
				RedkitObservations.NONE);
		this.direct = this.support.template;
	}

	@BeforeEach
	void loadScripts() {
		// every script cached by the server before a cut, so that the cut request applies
		// the call (a NOSCRIPT answer would be sent again as an EVAL, applied once
		// anyway)
		String warm = this.support.queue(QueueOrder.FIFO, Duration.ofSeconds(30), 1, CollapsePolicy.FIRST_WINS);
		this.direct.sendAsync(warm, new Email("w", 0)).join();
		this.direct.sendDelayed(warm, new Email("w", 0), Duration.ZERO);
		this.direct.requeueDeadLetters(warm);
		this.direct.receive(warm, Email.class, 10).forEach(this.direct::ack);
	}

	@AfterEach
	void close() {
		this.support.close();
		this.factory.destroy();
		this.link.close();
	}

	@Test
	void aSendIsEnqueuedOnce() {
		String queue = connectedQueue(CollapsePolicy.NONE);
		this.link.cutAfterNextWrite();
		this.template.send(queue, new Email("a", 1));
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(this.direct.size(queue)).isOne();
	}

	@Test
	void anAsynchronousSendIsEnqueuedOnce() {
		String queue = connectedQueue(CollapsePolicy.NONE);
		this.link.cutAfterNextWrite();
		this.template.sendAsync(queue, new Email("a", 1)).join();
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(this.direct.size(queue)).isOne();
	}

	@Test
	void aSendAllIsEnqueuedOnce() {
		String queue = connectedQueue(CollapsePolicy.NONE);
		this.link.cutAfterNextWrite();
		this.template.sendAll(queue, List.of(new Email("a", 1), new Email("b", 2), new Email("c", 3)));
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(this.direct.size(queue)).isEqualTo(3);
		assertThat(this.direct.receive(queue, Email.class, 10)).extracting((message) -> message.payload().number())
			.containsExactly(1, 2, 3);
	}

	@Test
	void aDelayedSendIsScheduledOnceAndAnswersScheduled() {
		for (CollapsePolicy collapse : CollapsePolicy.values()) {
			String queue = connectedQueue(collapse);
			this.link.cutAfterNextWrite();
			assertThat(this.template.sendDelayed(queue, new Email("a", 1), Duration.ofHours(1))).as("%s", collapse)
				.isTrue();
			assertThat(this.direct.stats(queue).delayed()).as("%s", collapse).isOne();
		}
		assertThat(this.link.cutsAfterWrite()).isEqualTo(CollapsePolicy.values().length);
	}

	@Test
	void aTakeIsAnsweredTheSameBatchAndNothingStaysInFlightUnderALostToken() {
		String queue = connectedQueue(CollapsePolicy.NONE);
		this.direct.sendAll(queue, IntStream.rangeClosed(1, 4).mapToObj((i) -> new Email("x", i)).toList());
		this.link.cutAfterNextWrite();
		List<QueueMessage<Email>> taken = this.template.receive(queue, Email.class, 2);
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		// the copy answers the batch from the in-flight set, whose order is not the order
		// of the pop
		assertThat(taken).extracting((message) -> message.payload().number()).containsExactlyInAnyOrder(1, 2);
		assertThat(taken).allMatch((message) -> message.deliveries() == 1);
		assertThat(this.direct.stats(queue)).extracting(QueueStats::ready, QueueStats::inFlight)
			.containsExactly(2L, 2L);
		// every entry in flight is one the caller holds: its acks settle them all
		taken.forEach((message) -> assertThat(this.template.ack(message)).isTrue());
		assertThat(this.direct.stats(queue).inFlight()).isZero();
		assertThat(this.direct.receive(queue, Email.class, 10)).allMatch((message) -> message.deliveries() == 1)
			.extracting((message) -> message.payload().number())
			.containsExactly(3, 4);
	}

	@Test
	void anAckAndTakeIsAnsweredTheSameBatchAndItsAcksCountedOnce() {
		String queue = connectedQueue(CollapsePolicy.NONE);
		this.direct.sendAll(queue, IntStream.rangeClosed(1, 3).mapToObj((i) -> new Email("x", i)).toList());
		QueueMessage<Email> first = this.template.receive(queue, Email.class).orElseThrow();
		this.link.cutAfterNextWrite();
		QueueMessage<Email> next = this.template.ackAndReceive(first, Email.class).orElseThrow();
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(next.payload().number()).isEqualTo(2);
		assertThat(next.deliveries()).isOne();
		assertThat(this.direct.stats(queue)).extracting(QueueStats::ready, QueueStats::inFlight)
			.containsExactly(1L, 1L);
		assertThat(this.meters.find("redkit.queue.messages").tag("outcome", "late-ack").counter())
			.as("the first application's ack is not reported late")
			.isNull();
		assertThat(this.meters.get("redkit.queue.messages").tag("outcome", "processed").counter().count()).isOne();
	}

	@Test
	void anAckIsTokenCheckedAndSettlesOnlyItsOwnTake() {
		String queue = connectedQueue(CollapsePolicy.NONE);
		this.direct.sendAll(queue, List.of(new Email("a", 1), new Email("b", 2)));
		QueueMessage<Email> mine = this.template.receive(queue, Email.class).orElseThrow();
		QueueMessage<Email> other = this.direct.receive(queue, Email.class).orElseThrow();
		this.link.cutAfterNextWrite();
		// the replay's ZREM finds nothing more to remove: its answer is the replay's
		this.template.ack(mine);
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(this.direct.stats(queue)).isEqualTo(new QueueStats(0, 0, 1, 0, Duration.ZERO));
		assertThat(this.direct.ack(other)).as("another take is left alone").isTrue();
		assertThat(this.direct.receive(queue, Email.class)).as("settled once, not redelivered").isEmpty();
	}

	@Test
	void aBatchRequeueMovesOneBatchAndAnswersItsCount() {
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofSeconds(30), 1, CollapsePolicy.NONE);
		this.direct.sendAll(queue, IntStream.range(0, 150).mapToObj((i) -> new Email("x", i)).toList());
		List<QueueMessage<Email>> taken = this.direct.receive(queue, Email.class, 150);
		taken.forEach((message) -> assertThat(this.direct.fail(message, new IllegalStateException("boom")))
			.isEqualTo(FailureOutcome.DEAD_LETTERED));
		assertThat(this.template.size(queue)).isZero();
		this.link.cutAfterNextWrite();
		assertThat(this.template.requeueDeadLetters(queue)).isEqualTo(150);
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		QueueStats stats = this.direct.stats(queue);
		assertThat(stats.ready()).isEqualTo(150);
		assertThat(stats.deadLetters()).isZero();
	}

	@Test
	void aRequeueByIdAnswersMoved() {
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofSeconds(30), 1, CollapsePolicy.NONE);
		this.direct.send(queue, new Email("a", 1));
		QueueMessage<Email> taken = this.direct.receive(queue, Email.class).orElseThrow();
		this.direct.fail(taken, new IllegalStateException("boom"));
		assertThat(this.template.size(queue)).isZero();
		this.link.cutAfterNextWrite();
		assertThat(this.template.requeueDeadLetter(queue, taken.id())).isTrue();
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(this.direct.size(queue)).isOne();
	}

	@Test
	void aSendsRecordIsKeptForTheReplayWindowOnly() {
		String queue = connectedQueue(CollapsePolicy.NONE);
		this.template.send(queue, new Email("a", 1));
		StringRedisTemplate redis = new StringRedisTemplate(this.topology.connectionFactory());
		String record = QueueKeys.of(QueueTestSupport.KEYSPACE, queue).once("x");
		Set<String> records = ScannedKeys.matching(redis, record.substring(0, record.length() - 1) + "*");
		assertThat(records).hasSize(1);
		// Boot's default command timeout (60 s) and the queue's (60 s): twice that
		assertThat(redis.getExpire(records.iterator().next(), TimeUnit.MILLISECONDS)).isPositive()
			.isLessThanOrEqualTo(Duration.ofSeconds(120).toMillis());
	}

	/**
	 * A fresh queue, connected and its scripts loaded before the cut (so that the cut
	 * request is the call itself).
	 */
	private String connectedQueue(CollapsePolicy collapse) {
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofSeconds(30), 3, collapse);
		assertThat(this.template.size(queue)).isZero();
		this.template.receive(queue, Email.class, 1);
		return queue;
	}

}
