package io.github.redkit.queue;

import java.time.Duration;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Creates the listener containers of {@link QueueListener @QueueListener} methods.
 */
public class QueueListenerContainerFactory {

	private final RedisQueueTemplate template;

	private final RedisConnectionFactory connectionFactory;

	private final Duration pollTimeout;

	private final Duration shutdownTimeout;

	/**
	 * Creates a factory.
	 * @param template the template messages are taken through
	 * @param connectionFactory where the consumers' blocking connections come from
	 * @param pollTimeout the longest blocking wait of a consumer
	 * @param shutdownTimeout how long stopping waits for in-flight messages
	 */
	public QueueListenerContainerFactory(RedisQueueTemplate template, RedisConnectionFactory connectionFactory,
			Duration pollTimeout, Duration shutdownTimeout) {
		this.template = template;
		this.connectionFactory = connectionFactory;
		this.pollTimeout = pollTimeout;
		this.shutdownTimeout = shutdownTimeout;
	}

	/**
	 * Creates a stopped container.
	 * @param queue the queue name
	 * @param concurrency the number of consumer threads
	 * @param handler what handles each payload
	 * @return the container
	 */
	public QueueListenerContainer create(String queue, int concurrency, QueueMessageHandler handler) {
		return new QueueListenerContainer(queue, concurrency, handler, this.template, this.connectionFactory,
				this.pollTimeout, this.shutdownTimeout);
	}

}
