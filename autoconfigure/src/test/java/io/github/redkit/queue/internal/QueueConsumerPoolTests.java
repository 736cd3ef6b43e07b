package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.internal.QueueTestSupport.Email;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisTopology;
import io.lettuce.core.api.StatefulConnection;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Listener consumers on Spring Boot's pooled connection factory (a shared native
 * connection, {@code max-active} 8, a borrow that waits for ever) while the application
 * holds every other connection of the pool: an idle consumer waits no longer than its
 * poll timeout, and its container stops within it.
 */
class QueueConsumerPoolTests {

	private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);

	private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);

	private LettuceConnectionFactory pool;

	private QueueTestSupport support;

	private RedisQueueTemplate template;

	private QueueListenerContainerFactory containers;

	private final CountDownLatch letGo = new CountDownLatch(1);

	private final List<Thread> holders = new ArrayList<>();

	private final List<DefaultQueueListenerContainer> started = new ArrayList<>();

	@BeforeEach
	void setUp() {
		this.pool = bootsPool(RedisTopology.STANDALONE.server());
		this.support = new QueueTestSupport(RedisTopology.STANDALONE);
		this.template = new RedisQueueTemplate(new RedisScriptRunner(this.pool), QueueTestSupport.KEYSPACE,
				QueueTestSupport.JSON, this.support::settings, RedkitMetrics.NONE, RedkitObservations.NONE);
		this.containers = new QueueListenerContainerFactory(this.template,
				new QueueListenerSettings(this.support::settings, POLL_TIMEOUT, SHUTDOWN_TIMEOUT), this.pool,
				QueueTestSupport.KEYSPACE, QueueTestSupport.JSON, RedkitMetrics.NONE, RedkitObservations.NONE);
	}

	@AfterEach
	void tearDown() throws InterruptedException {
		this.letGo.countDown();
		this.started.forEach(DefaultQueueListenerContainer::stop);
		for (Thread holder : this.holders) {
			holder.join(10_000);
		}
		this.containers.destroy();
		this.support.close();
		this.pool.destroy();
	}

	@Test
	void anIdleConsumerTakesWithinItsPollTimeoutWhileTheApplicationHoldsTheRestOfThePool() {
		String queue = this.support.queue();
		List<Email> received = new CopyOnWriteArrayList<>();
		DefaultQueueListenerContainer container = this.containers.create(queue, 1,
				QueueTestSupport.handler(Email.class, (payload) -> received.add((Email) payload)));
		this.started.add(container);
		container.start();
		this.template.send(queue, new Email("warm-up", 0));
		await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 1);
		holdEveryConnectionTheApplicationCanGet();
		for (int number = 1; number <= 3; number++) {
			this.template.send(queue, new Email("while the application holds the pool", number));
			int expected = number + 1;
			await().atMost(POLL_TIMEOUT.multipliedBy(10)).until(() -> received.size() == expected);
		}
		long waiting = applicationThreadsWaitingForThePool();
		long start = System.nanoTime();
		container.stop();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the stop")
			.isLessThan(SHUTDOWN_TIMEOUT.dividedBy(2));
		// the last consumer gone, the share's connection goes back to the pool
		await().atMost(Duration.ofSeconds(5)).until(() -> applicationThreadsWaitingForThePool() == waiting - 1);
	}

	@Test
	void aConsumerStartedWhileTheApplicationHoldsThePoolTakesWithinItsPollTimeout() {
		String queue = this.support.queue();
		List<Email> received = new CopyOnWriteArrayList<>();
		DefaultQueueListenerContainer first = this.containers.create(queue, 1,
				QueueTestSupport.handler(Email.class, (payload) -> received.add((Email) payload)));
		this.started.add(first);
		first.start();
		this.template.send(queue, new Email("warm-up", 0));
		await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 1);
		// its share's connection back to the pool, where the application takes it
		first.stop();
		holdEveryConnectionTheApplicationCanGet();
		DefaultQueueListenerContainer container = this.containers.create(queue, 2,
				QueueTestSupport.handler(Email.class, (payload) -> received.add((Email) payload)));
		this.started.add(container);
		container.start();
		for (int number = 1; number <= 3; number++) {
			this.template.send(queue, new Email("into a saturated pool", number));
			int expected = number + 1;
			await().atMost(POLL_TIMEOUT.multipliedBy(10)).until(() -> received.size() == expected);
		}
		long start = System.nanoTime();
		container.stop();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the stop")
			.isLessThan(SHUTDOWN_TIMEOUT.dividedBy(2));
		this.letGo.countDown();
		this.holders.forEach((holder) -> await().atMost(Duration.ofSeconds(10)).until(() -> !holder.isAlive()));
	}

	/**
	 * Eight threads of the application each take a dedicated connection of the pool (as a
	 * transaction or a blocking command does) and keep it until the test lets go; those
	 * that find none wait for one. Returns once one waits: the pool is the application's,
	 * but what Redkit already held.
	 */
	private void holdEveryConnectionTheApplicationCanGet() {
		for (int i = 0; i < 8; i++) {
			Thread holder = new Thread(() -> {
				try (RedisConnection connection = this.pool.getConnection()) {
					connection.openPipeline();
					this.letGo.await();
					connection.closePipeline();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}, "application-holder-" + i);
			holder.setDaemon(true);
			this.holders.add(holder);
			holder.start();
		}
		await().atMost(Duration.ofSeconds(10)).until(this::theApplicationWaitsForThePool);
	}

	private boolean theApplicationWaitsForThePool() {
		return applicationThreadsWaitingForThePool() > 0;
	}

	private long applicationThreadsWaitingForThePool() {
		return this.holders.stream()
			.filter((holder) -> Arrays.stream(holder.getStackTrace())
				.anyMatch((frame) -> frame.getMethodName().equals("borrowObject")))
			.count();
	}

	/**
	 * A connection factory as Spring Boot makes one with
	 * {@code spring.data.redis.lettuce.pool.enabled=true}: the native connection shared,
	 * a pool of 8 dedicated connections whose borrowers wait for ever ({@code max-wait}
	 * -1).
	 */
	private static LettuceConnectionFactory bootsPool(RedisServer server) {
		GenericObjectPoolConfig<StatefulConnection<?, ?>> config = new GenericObjectPoolConfig<>();
		config.setMaxTotal(8);
		config.setMaxWait(Duration.ofMillis(-1));
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(RedisServer.HOST, server.port()),
				LettucePoolingClientConfiguration.builder()
					.poolConfig(config)
					.commandTimeout(Duration.ofSeconds(5))
					.build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
