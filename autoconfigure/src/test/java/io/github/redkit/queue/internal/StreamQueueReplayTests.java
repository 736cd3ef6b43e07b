package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;

import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.CollapsePolicy;
import io.github.redkit.queue.ExistingStream;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueOrder;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.internal.QueueTestSupport.Email;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.github.redkit.testsupport.TcpProxy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.stream.PendingMessages;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link QueueReplayTests} on the stream store: the connection is cut after Redis applied
 * a call and before its answer came back ({@link TcpProxy#cutAfterNextWrite()}), so
 * Lettuce reconnects and sends the same call again (issue 43, issue 46). Each call is
 * applied once and the caller gets the first application's answer. On every server
 * family: the stream commands' replies differ between them ({@code XAUTOCLAIM}'s,
 * {@code XINFO}'s).
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.FAMILIES)
class StreamQueueReplayTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private final TcpProxy link;

	private final LettuceConnectionFactory factory;

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	/** Straight to the server, to look at what the cut calls left. */
	private final QueueTestSupport support;

	private final RedisQueueTemplate template;

	private final RedisQueueTemplate direct;

	private final StringRedisTemplate redis;

	StreamQueueReplayTests(RedisTopology topology) {
		this.link = TcpProxy.start(topology.server().port());
		this.factory = this.link.connectionFactory(TIMEOUT);
		this.support = new QueueTestSupport(topology, QueueStore.STREAM);
		this.template = new RedisQueueTemplate(new RedisScriptRunner(this.factory), QueueTestSupport.KEYSPACE,
				QueueTestSupport.JSON, this.support::settings, new MicrometerRedkitMetrics(() -> this.meters),
				RedkitObservations.NONE);
		this.direct = this.support.template;
		this.redis = new StringRedisTemplate(topology.connectionFactory());
	}

	@BeforeEach
	void loadScripts() {
		// every script cached by the server before a cut, so that the cut request applies
		// the call (a NOSCRIPT answer would be sent again as an EVAL)
		String warm = queue();
		this.template.sendAll(warm, List.of(new Email("w", 0), new Email("w", 1), new Email("w", 2)));
		List<QueueMessage<Email>> taken = this.template.receive(warm, Email.class, 3);
		this.template.extend(taken.get(0), Duration.ofSeconds(1));
		this.template.release(taken.get(1));
		this.template.fail(taken.get(2), new IllegalStateException("warm"));
		this.template.requeueDeadLetters(warm);
		this.template.ack(taken.get(0));
	}

	@AfterEach
	void close() {
		this.support.close();
		this.factory.destroy();
		this.link.close();
	}

	@Test
	void aSendIsEnqueuedOnce() {
		String queue = queue();
		this.link.cutAfterNextWrite();
		this.template.sendAll(queue, List.of(new Email("a", 1), new Email("b", 2)));
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(this.direct.size(queue)).isEqualTo(2);
	}

	@Test
	void aTakeIsAnsweredTheSameBatchAndNothingStaysPendingForNobody() {
		String queue = queue();
		this.direct.sendAll(queue, IntStream.rangeClosed(1, 4).mapToObj((i) -> new Email("x", i)).toList());
		this.link.cutAfterNextWrite();
		List<QueueMessage<Email>> taken = this.template.receive(queue, Email.class, 2);
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(taken).extracting((message) -> message.payload().number()).containsExactly(1, 2);
		assertThat(taken).allMatch((message) -> message.deliveries() == 1);
		assertThat(this.direct.stats(queue)).extracting(QueueStats::ready, QueueStats::inFlight)
			.containsExactly(2L, 2L);
		// every pending entry is one the caller holds: its acks settle them all
		taken.forEach((message) -> assertThat(this.template.ack(message)).isTrue());
		assertThat(this.direct.stats(queue).inFlight()).isZero();
		assertThat(this.direct.receive(queue, Email.class, 10)).allMatch((message) -> message.deliveries() == 1)
			.extracting((message) -> message.payload().number())
			.containsExactly(3, 4);
	}

	@Test
	void aTakeThatClaimedExpiredEntriesIsAnsweredTheSameBatchWithTheirDeliveryCounts() {
		String queue = queue();
		this.direct.sendAll(queue, IntStream.rangeClosed(1, 3).mapToObj((i) -> new Email("x", i)).toList());
		List<QueueMessage<Email>> abandoned = this.direct.receive(queue, Email.class, 2);
		assertThat(abandoned).hasSize(2);
		// both expire (their idle time set past the visibility timeout in Redis, not
		// waited for: the replay must find the claimed takes still within theirs, which
		// a 200 ms timeout did not leave on a loaded machine), then one take claims them
		// and reads the third
		abandoned.forEach(this.support::expire);
		this.link.cutAfterNextWrite();
		List<QueueMessage<Email>> taken = this.template.receive(queue, Email.class, 3);
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(taken).extracting((message) -> message.payload().number() + "/" + message.deliveries())
			.containsExactly("1/2", "2/2", "3/1");
		taken.forEach((message) -> assertThat(this.template.ack(message)).isTrue());
		assertThat(this.direct.stats(queue)).extracting(QueueStats::ready, QueueStats::inFlight)
			.containsExactly(0L, 0L);
	}

	@Test
	void aTakeOfAStreamAnotherApplicationWritesIsAnsweredTheSameBatch() {
		String key = "orders-" + UUID.randomUUID();
		IntStream.rangeClosed(1, 4).forEach((i) -> this.redis.opsForStream().add(key, Map.of("order", "" + i)));
		String queue = "q-" + UUID.randomUUID();
		this.support.settings.put(queue,
				this.support.settings(queue()).withExistingStream(new ExistingStream(key, "orders", "0", true, null)));
		this.direct.prepareStreamQueue(queue);
		this.link.cutAfterNextWrite();
		List<QueueMessage<Map>> taken = this.template.receive(queue, Map.class, 2);
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(taken).extracting((message) -> message.payload().get("order") + "/" + message.deliveries())
			.containsExactly("1/1", "2/1");
		// every pending entry is one the caller holds: its acks settle them all, and the
		// entries stay (the stream is the other application's)
		assertThat(this.redis.opsForStream().pending(key, "orders", Range.unbounded(), 10)).hasSize(2);
		taken.forEach((message) -> assertThat(this.template.ack(message)).isTrue());
		assertThat(this.redis.opsForStream().pending(key, "orders", Range.unbounded(), 10)).isEmpty();
		assertThat(this.direct.receive(queue, Map.class, 10)).allMatch((message) -> message.deliveries() == 1)
			.extracting((message) -> message.payload().get("order"))
			.containsExactly("3", "4");
		assertThat(this.redis.opsForStream().size(key)).isEqualTo(4);
	}

	@Test
	void anAckAndTakeIsAnsweredTheSameBatchAndItsAcksCountedOnce() {
		String queue = queue();
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
	void anAckAnswersAcknowledgedAndSettlesOnlyItsOwnTake() {
		String queue = queue();
		this.direct.sendAll(queue, List.of(new Email("a", 1), new Email("b", 2)));
		QueueMessage<Email> mine = this.template.receive(queue, Email.class).orElseThrow();
		QueueMessage<Email> other = this.direct.receive(queue, Email.class).orElseThrow();
		this.link.cutAfterNextWrite();
		assertThat(this.template.ack(mine)).isTrue();
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(this.meters.find("redkit.queue.messages").tag("outcome", "late-ack").counter()).isNull();
		assertThat(this.direct.stats(queue)).extracting(QueueStats::ready, QueueStats::inFlight)
			.containsExactly(0L, 1L);
		assertThat(this.direct.ack(other)).as("another take is left alone").isTrue();
		assertThat(this.direct.receive(queue, Email.class)).as("settled once, not redelivered").isEmpty();
	}

	@Test
	void aFailThatDeadLettersAnswersDeadLettered() {
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofSeconds(30), 1, CollapsePolicy.NONE);
		this.direct.send(queue, new Email("a", 1));
		QueueMessage<Email> taken = this.template.receive(queue, Email.class).orElseThrow();
		this.link.cutAfterNextWrite();
		assertThat(this.template.fail(taken, new IllegalStateException("boom")))
			.isEqualTo(FailureOutcome.DEAD_LETTERED);
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(this.direct.stats(queue)).extracting(QueueStats::inFlight, QueueStats::deadLetters)
			.containsExactly(0L, 1L);
	}

	@Test
	void aFailThatRetriesAnswersRetriedAndKeepsItsBackoff() {
		String queue = queue();
		this.direct.send(queue, new Email("a", 1));
		QueueMessage<Email> taken = this.template.receive(queue, Email.class).orElseThrow();
		this.link.cutAfterNextWrite();
		assertThat(this.template.fail(taken, new IllegalStateException("boom"))).isEqualTo(FailureOutcome.RETRIED);
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(pending(queue)).singleElement()
			.satisfies((entry) -> assertThat(entry.getTotalDeliveryCount()).isOne());
	}

	@Test
	void aReleaseAnswersReleasedAndLeavesTheNextTakeAlone() {
		String queue = queue();
		this.direct.send(queue, new Email("a", 1));
		QueueMessage<Email> taken = this.template.receive(queue, Email.class).orElseThrow();
		this.link.cutAfterNextWrite();
		assertThat(this.template.release(taken)).isTrue();
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		QueueMessage<Email> again = this.direct.receive(queue, Email.class).orElseThrow();
		assertThat(again.deliveries()).as("a release counts no delivery").isOne();
		assertThat(this.direct.ack(again)).isTrue();
	}

	@Test
	void anExtendAnswersExtended() {
		String queue = queue();
		this.direct.send(queue, new Email("a", 1));
		QueueMessage<Email> taken = this.template.receive(queue, Email.class).orElseThrow();
		this.link.cutAfterNextWrite();
		assertThat(this.template.extend(taken, Duration.ofSeconds(10))).isTrue();
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(this.template.ack(taken)).isTrue();
	}

	@Test
	void aBatchRequeueMovesOneBatchAndAnswersItsCount() {
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofSeconds(30), 1, CollapsePolicy.NONE);
		this.direct.sendAll(queue, IntStream.range(0, 150).mapToObj((i) -> new Email("x", i)).toList());
		List<QueueMessage<Email>> taken = this.direct.receive(queue, Email.class, 150);
		taken.forEach((message) -> assertThat(this.direct.fail(message, new IllegalStateException("boom")))
			.isEqualTo(FailureOutcome.DEAD_LETTERED));
		this.link.cutAfterNextWrite();
		assertThat(this.template.requeueDeadLetters(queue)).isEqualTo(150);
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		QueueStats stats = this.direct.stats(queue);
		assertThat(stats.ready()).isEqualTo(150);
		assertThat(stats.deadLetters()).isZero();
	}

	private String queue() {
		return this.support.queue(QueueOrder.FIFO, Duration.ofSeconds(30), 3, CollapsePolicy.NONE);
	}

	private PendingMessages pending(String queue) {
		return this.redis.opsForStream()
			.pending(QueueKeys.of(QueueTestSupport.KEYSPACE, queue).stream(), StreamQueueStore.GROUP, Range.unbounded(),
					10);
	}

}
