package io.github.redkit.queue.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.BackoffPolicy;
import io.github.redkit.queue.CollapsePolicy;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueMessageHandler;
import io.github.redkit.queue.QueueOrder;
import io.github.redkit.queue.QueueSettings;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.testsupport.RedisTopology;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.RedisStreamCommands.XClaimOptions;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Templates on the shared servers with per-test queue settings; closing it ends the
 * visibility renewals of the containers it made.
 */
final class QueueTestSupport implements AutoCloseable {

	static final RedisKeyspace KEYSPACE = new RedisKeyspace("redkit-test");

	static final JsonMapper JSON = JsonMapper.builder().build();

	final Map<String, QueueSettings> settings = new ConcurrentHashMap<>();

	final RedisQueueTemplate template;

	final RedisTopology topology;

	/**
	 * The store of the queues this support makes.
	 */
	final QueueStore store;

	private final List<QueueListenerContainerFactory> factories = new CopyOnWriteArrayList<>();

	QueueTestSupport(RedisTopology topology, RedkitMetrics metrics) {
		this(topology, metrics, RedkitObservations.NONE);
	}

	QueueTestSupport(RedisTopology topology, RedkitMetrics metrics, RedkitObservations observations) {
		this(topology, metrics, observations, QueueStore.LIST);
	}

	QueueTestSupport(RedisTopology topology, RedkitMetrics metrics, RedkitObservations observations, QueueStore store) {
		this.topology = topology;
		this.store = store;
		this.template = new RedisQueueTemplate(new RedisScriptRunner(topology.connectionFactory()), KEYSPACE, JSON,
				this::settings, metrics, observations);
	}

	QueueTestSupport(RedisTopology topology) {
		this(topology, RedkitMetrics.NONE);
	}

	/**
	 * A second template on this support's queues, as another instance of the application
	 * has: its own script runner, no metrics and no observations.
	 * @return the template
	 */
	RedisQueueTemplate otherInstance() {
		return new RedisQueueTemplate(new RedisScriptRunner(this.topology.connectionFactory()), KEYSPACE, JSON,
				this::settings, RedkitMetrics.NONE, RedkitObservations.NONE);
	}

	QueueTestSupport(RedisTopology topology, QueueStore store) {
		this(topology, RedkitMetrics.NONE, RedkitObservations.NONE, store);
	}

	/**
	 * A fresh queue name with fast settings.
	 */
	String queue(QueueOrder order, Duration visibility, int maxAttempts, CollapsePolicy collapse) {
		return queue(order, visibility, maxAttempts, collapse, Duration.ofMillis(1));
	}

	/**
	 * A fresh queue name with fast settings and a fixed backoff after a failure.
	 */
	String queue(QueueOrder order, Duration visibility, int maxAttempts, CollapsePolicy collapse, Duration backoff) {
		String name = "q-" + UUID.randomUUID();
		this.settings.put(name, inStore(new QueueSettings(order, visibility, maxAttempts,
				new BackoffPolicy(backoff, 1.0, backoff, 0), true, Duration.ofHours(1), collapse)));
		return name;
	}

	/**
	 * A fresh FIFO queue whose listener consumers take up to {@code prefetch} messages
	 * per round trip.
	 */
	String prefetchingQueue(Duration visibility, int prefetch) {
		String name = "q-" + UUID.randomUUID();
		this.settings.put(name,
				inStore(new QueueSettings(QueueOrder.FIFO, visibility, 3,
						new BackoffPolicy(Duration.ofMillis(1), 1.0, Duration.ofMillis(1), 0), true,
						Duration.ofHours(1), CollapsePolicy.NONE, prefetch)));
		return name;
	}

	private QueueSettings inStore(QueueSettings settings) {
		return (this.store == QueueStore.LIST) ? settings : settings.withStore(this.store, 0);
	}

	QueueSettings settings(String queue) {
		QueueSettings settings = this.settings.get(queue);
		if (settings == null) {
			throw new IllegalArgumentException("No settings for queue " + queue + ": create it with queue(...)");
		}
		return settings;
	}

	String queue() {
		return queue(QueueOrder.FIFO, Duration.ofSeconds(30), 3, CollapsePolicy.NONE);
	}

	DefaultQueueListenerContainer container(String queue, int concurrency, QueueMessageHandler handler,
			Duration shutdownTimeout) {
		return container(this.template, queue, concurrency, handler, shutdownTimeout);
	}

	/**
	 * A container that takes and settles messages through the given template.
	 */
	DefaultQueueListenerContainer container(QueueTemplate template, String queue, int concurrency,
			QueueMessageHandler handler, Duration shutdownTimeout) {
		return factory(template, shutdownTimeout).create(queue, concurrency, handler);
	}

	/**
	 * A container that takes and settles messages through the given template, whose
	 * consumers wait {@code pollTimeout} (instead of 100 ms) before they take again after
	 * a take failed.
	 */
	DefaultQueueListenerContainer container(QueueTemplate template, String queue, int concurrency,
			QueueMessageHandler handler, Duration shutdownTimeout, Duration pollTimeout) {
		return factory(template, new QueueListenerSettings(this::settings, pollTimeout, shutdownTimeout),
				RedkitMetrics.NONE, RedkitObservations.NONE)
			.create(queue, concurrency, handler);
	}

	/**
	 * A container factory, destroyed when this support is closed.
	 */
	QueueListenerContainerFactory factory(QueueTemplate template, Duration shutdownTimeout) {
		return factory(template, shutdownTimeout, RedkitObservations.NONE);
	}

	/**
	 * A container factory whose consumers observe the handling of each message.
	 */
	QueueListenerContainerFactory factory(QueueTemplate template, Duration shutdownTimeout,
			RedkitObservations observations) {
		return factory(template, shutdownTimeout, RedkitMetrics.NONE, observations);
	}

	/**
	 * A container factory whose consumers record what they do in the given metrics.
	 */
	QueueListenerContainerFactory factory(QueueTemplate template, Duration shutdownTimeout, RedkitMetrics metrics) {
		return factory(template, shutdownTimeout, metrics, RedkitObservations.NONE);
	}

	private QueueListenerContainerFactory factory(QueueTemplate template, Duration shutdownTimeout,
			RedkitMetrics metrics, RedkitObservations observations) {
		return factory(template, new QueueListenerSettings(this::settings, Duration.ofMillis(100), shutdownTimeout),
				metrics, observations);
	}

	private QueueListenerContainerFactory factory(QueueTemplate template, QueueListenerSettings listenerSettings,
			RedkitMetrics metrics, RedkitObservations observations) {
		QueueListenerContainerFactory factory = new QueueListenerContainerFactory(template, listenerSettings,
				this.topology.connectionFactory(), KEYSPACE, JSON, metrics, observations);
		this.factories.add(factory);
		return factory;
	}

	/**
	 * Makes a stream take look abandoned long ago: its idle time is set far past any
	 * visibility timeout with Redis' own {@code XCLAIM ... IDLE ... JUSTID} (the same
	 * consumer, no delivery counted), and the claim scan's gate (a tenth of the
	 * visibility timeout) is open, as it would be by then; a test drives the expiry
	 * instead of waiting for it on a loaded machine.
	 * @param message the take
	 */
	void expire(QueueMessage<?> message) {
		QueueKeys keys = QueueKeys.of(KEYSPACE, message.queue());
		String stream = keys.stream();
		String entry = TakenMessage.of(message).take();
		StringRedisTemplate redis = new StringRedisTemplate(this.topology.connectionFactory());
		String consumer = redis.opsForStream()
			.pending(stream, StreamQueueStore.GROUP, Range.closed(entry, entry), 1)
			.get(0)
			.getConsumerName();
		redis.execute((RedisCallback<Object>) (connection) -> connection.streamCommands()
			.xClaimJustId(stream.getBytes(StandardCharsets.UTF_8), StreamQueueStore.GROUP, consumer,
					XClaimOptions.minIdle(Duration.ZERO).ids(entry).idle(Duration.ofHours(1))));
		redis.delete(keys.claimCursor());
	}

	@Override
	public void close() {
		this.factories.forEach(QueueListenerContainerFactory::destroy);
	}

	/**
	 * A listener's wait for the stop that interrupts it: it keeps its thread's interrupt,
	 * as a listener should, and ends with an exception.
	 */
	static void awaitTheStopKeepingItsInterrupt() {
		try {
			new CountDownLatch(1).await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

	static QueueMessageHandler handler(Class<?> type, ThrowingConsumer consumer) {
		return new QueueMessageHandler() {

			@Override
			public java.lang.reflect.Type payloadType() {
				return type;
			}

			@Override
			public void handle(Object payload) throws Exception {
				consumer.accept(payload);
			}

		};
	}

	interface ThrowingConsumer {

		void accept(Object payload) throws Exception;

	}

	record Email(String to, int number) {

	}

}
