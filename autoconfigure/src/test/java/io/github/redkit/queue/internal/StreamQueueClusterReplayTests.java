package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.BackoffPolicy;
import io.github.redkit.queue.CollapsePolicy;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueOrder;
import io.github.redkit.queue.QueueSettings;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.internal.QueueTestSupport.Email;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.ProxiedCluster;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.TcpProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A stream queue's take on a Redis Cluster when Lettuce sends it again (issue 46): the
 * queue's keys (stream, claim cursor, the take's record) share its hash tag, so the take
 * runs on the one master of that slot, reached through a {@link TcpProxy} cut after the
 * take's write. The take sent again is answered the same batch, and nothing stays pending
 * for nobody.
 */
class StreamQueueClusterReplayTests {

	// long enough for a cold first call on a loaded machine
	private static final Duration TIMEOUT = Duration.ofSeconds(15);

	@PrivateRedis(cluster = true)
	private static RedisServer cluster;

	@PrivateRedis
	private static ProxiedCluster proxied;

	private final LettuceConnectionFactory factory = proxied.connectionFactory(TIMEOUT);

	/**
	 * Another client, to look at what the cut call left (never cut: no cut is armed for
	 * it).
	 */
	private final LettuceConnectionFactory directFactory = cluster.createConnectionFactory();

	private final Map<String, QueueSettings> settings = new ConcurrentHashMap<>();

	private final RedisQueueTemplate template = template(this.factory);

	private final RedisQueueTemplate direct = template(this.directFactory);

	@AfterEach
	void close() {
		this.factory.destroy();
		this.directFactory.destroy();
	}

	@Test
	void aTakeIsAnsweredTheSameBatchAndNothingStaysPendingForNobody() {
		String queue = "q-" + UUID.randomUUID();
		this.settings.put(queue,
				new QueueSettings(QueueOrder.FIFO, Duration.ofSeconds(30), 3,
						new BackoffPolicy(Duration.ofMillis(1), 1.0, Duration.ofMillis(1), 0), true,
						Duration.ofHours(1), CollapsePolicy.NONE)
					.withStore(QueueStore.STREAM, 0));
		String stream = QueueKeys.of(QueueTestSupport.KEYSPACE, queue).stream();
		TcpProxy link = proxied.link(proxied.masterOf(ClusterSlotHashUtil.calculateSlot(stream)));
		this.direct.sendAll(queue, IntStream.rangeClosed(1, 5).mapToObj((i) -> new Email("x", i)).toList());
		// connected to that master, and the take's and the ack's scripts loaded there,
		// before the cut
		QueueMessage<Email> warm = this.template.receive(queue, Email.class).orElseThrow();
		assertThat(this.template.ack(warm)).isTrue();
		int cuts = link.cutsAfterWrite();
		link.cutAfterNextWrite();
		List<QueueMessage<Email>> taken = this.template.receive(queue, Email.class, 2);
		assertThat(link.cutsAfterWrite()).isEqualTo(cuts + 1);
		assertThat(taken).extracting((message) -> message.payload().number() + "/" + message.deliveries())
			.containsExactly("2/1", "3/1");
		assertThat(new StringRedisTemplate(this.directFactory).opsForStream()
			.pending(stream, StreamQueueStore.GROUP, Range.unbounded(), 10)).as("only the batch answered is pending")
			.hasSize(2);
		// every pending entry is one the caller holds: its acks settle them all
		taken.forEach((message) -> assertThat(this.template.ack(message)).isTrue());
		assertThat(this.direct.stats(queue)).extracting(QueueStats::ready, QueueStats::inFlight)
			.containsExactly(2L, 0L);
		assertThat(this.direct.receive(queue, Email.class, 10)).allMatch((message) -> message.deliveries() == 1)
			.extracting((message) -> message.payload().number())
			.containsExactly(4, 5);
	}

	private RedisQueueTemplate template(LettuceConnectionFactory connections) {
		return new RedisQueueTemplate(new RedisScriptRunner(connections), QueueTestSupport.KEYSPACE,
				QueueTestSupport.JSON, this.settings::get, RedkitMetrics.NONE, RedkitObservations.NONE);
	}

}
