package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.stream.IntStream;

import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.internal.QueueTestSupport.Email;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.testsupport.RedisTopology;
import io.github.redkit.testsupport.TcpProxy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A take that acknowledges handled messages, whose answer never came (the client's
 * command timeout passed while the link was slow, then the connection was lost), is sent
 * again with the same acknowledgements, as a listener's consumer does after a failed take
 * (issue 46): Redis applied the first, so the second must neither report its
 * acknowledgements late nor leave what the first took in flight for nobody.
 */
class QueueTakeRetryTests {

	private final TcpProxy link = TcpProxy.start(RedisServers.standalone().port());

	/**
	 * The client's command timeout: shorter than the link's delay, longer than a loaded
	 * machine's answers.
	 */
	private final LettuceConnectionFactory factory = this.link.connectionFactory(Duration.ofSeconds(2));

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private QueueTestSupport support;

	@AfterEach
	void close() {
		this.link.heal();
		this.support.close();
		this.factory.destroy();
		this.link.close();
	}

	@ParameterizedTest
	@EnumSource(QueueStore.class)
	void aTakeSentAgainWithTheAcknowledgementsOfOneNotAnsweredIsAnsweredWhatTheFirstDid(QueueStore store) {
		this.support = new QueueTestSupport(RedisTopology.STANDALONE, store);
		RedisQueueTemplate template = new RedisQueueTemplate(new RedisScriptRunner(this.factory),
				QueueTestSupport.KEYSPACE, QueueTestSupport.JSON, this.support::settings,
				new MicrometerRedkitMetrics(() -> this.meters), RedkitObservations.NONE);
		String queue = this.support.queue();
		this.support.template.sendAll(queue, IntStream.rangeClosed(1, 4).mapToObj((i) -> new Email("x", i)).toList());
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

}
