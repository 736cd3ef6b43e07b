package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redkit.queue.CollapsePolicy;
import io.github.redkit.queue.QueueOrder;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.internal.QueueTestSupport.Email;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The consumers of a stream queue's group (review46d finding 4c): each instance reads as
 * one; those of instances that ended must not pile up in {@code XINFO CONSUMERS}. On
 * every server family: the leave reads {@code XINFO CONSUMERS}' {@code idle} (its meaning
 * changed in Redis 7.2, which added {@code inactive}) and sends
 * {@code XGROUP DELCONSUMER}.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.SCRIPTS)
class StreamQueueConsumersTests {

	private static final Duration VISIBILITY = Duration.ofMillis(300);

	@Parameter
	RedisTopology topology;

	private QueueTestSupport support;

	private StringRedisTemplate redis;

	@BeforeEach
	void setUp() {
		this.support = new QueueTestSupport(this.topology, QueueStore.STREAM);
		this.redis = new StringRedisTemplate(this.topology.connectionFactory());
	}

	@AfterEach
	void close() {
		this.support.close();
	}

	/**
	 * Instance after instance starts, takes a message and stops while its listener still
	 * runs past {@code shutdown-timeout} (the message given back, its consumer thread
	 * alive): each stop leaves a consumer holding an entry, which the next instance takes
	 * again. The group keeps the consumers of the last few instances only, not one per
	 * start.
	 */
	@Test
	void consumersOfInstancesThatStoppedDoNotPileUpInTheGroup() throws Exception {
		String queue = this.support.queue(QueueOrder.FIFO, VISIBILITY, 100, CollapsePolicy.NONE);
		String stream = QueueKeys.of(QueueTestSupport.KEYSPACE, queue).stream();
		int most = 0;
		for (int i = 0; i < 15; i++) {
			RedisQueueTemplate instance = this.support.otherInstance();
			CountDownLatch started = new CountDownLatch(1);
			CountDownLatch finish = new CountDownLatch(1);
			DefaultQueueListenerContainer container = this.support.container(instance, queue, 1,
					QueueTestSupport.handler(Email.class, (payload) -> {
						started.countDown();
						finish.await(10, TimeUnit.SECONDS);
					}), Duration.ofMillis(100));
			most = Math.max(most, consumers(stream));
			this.support.template.send(queue, new Email("x", i));
			container.start();
			assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
			container.stop();
			finish.countDown();
		}
		assertThat(most).as("consumers in the group at a start, at most").isLessThanOrEqualTo(8);
		// those that stopped at least a visibility timeout ago, holding nothing, are gone
		await().atMost(Duration.ofSeconds(5)).until(() -> consumers(stream) <= 5);
	}

	private int consumers(String stream) {
		if (!Boolean.TRUE.equals(this.redis.hasKey(stream))) {
			return 0;
		}
		return this.redis.opsForStream().consumers(stream, StreamQueueStore.GROUP).size();
	}

}
