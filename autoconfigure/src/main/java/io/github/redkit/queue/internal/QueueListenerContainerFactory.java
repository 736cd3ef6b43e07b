package io.github.redkit.queue.internal;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.LeaseRenewer;
import io.github.redkit.queue.QueueListener;
import io.github.redkit.queue.QueueMessageHandler;
import io.github.redkit.queue.QueueReceiver;
import io.github.redkit.queue.QueueTemplate;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;

/**
 * Creates the listener containers of {@link QueueListener @QueueListener} methods. Any
 * {@link QueueTemplate} will do: messages are settled through its public methods and
 * taken through it as a {@link QueueReceiver} when it is one (as
 * {@link RedisQueueTemplate} is), else through its {@code receive} and
 * {@code ackAndReceive}. While a listener runs, its message's visibility is extended
 * every third of the visibility timeout (one {@link LeaseRenewer} thread for all the
 * containers of a factory), so that no other consumer takes it however long it runs.
 */
public class QueueListenerContainerFactory implements DisposableBean {

	private final LeaseRenewer renewer = new LeaseRenewer("redkit-queue-visibility");

	private final ConsumerSetup setup;

	/**
	 * Creates a factory.
	 * @param template the template messages are taken and settled through
	 * @param settings the settings of each queue, the poll and shutdown timeouts
	 * @param connectionFactory where the consumers' blocking connections come from
	 * @param keyspace the keyspace of the queues' keys (the consumers wait on the ready
	 * lists)
	 * @param json converts payloads to the listeners' types when the template is not a
	 * {@link QueueReceiver}
	 * @param metrics where listener timings are recorded
	 * @param observations where the handling of each message is observed (as
	 * {@code redkit.queue.handle}, continuing its sender's trace),
	 * {@link RedkitObservations#NONE} for nowhere
	 */
	public QueueListenerContainerFactory(QueueTemplate template, QueueListenerSettings settings,
			RedisConnectionFactory connectionFactory, RedisKeyspace keyspace, JsonMapper json, RedkitMetrics metrics,
			RedkitObservations observations) {
		Assert.notNull(observations, "observations must not be null");
		QueueReceiver receiver = (template instanceof QueueReceiver own) ? own
				: new TemplateQueueReceiver(template, json);
		this.setup = new ConsumerSetup(template, receiver, settings,
				new ConsumerSetup.ReadyLists(connectionFactory, keyspace), new QueueEvents(metrics), observations,
				this.renewer);
	}

	/**
	 * Creates a stopped container.
	 * @param queue the queue name
	 * @param concurrency the number of consumer threads
	 * @param handler what handles each payload
	 * @return the container
	 */
	public DefaultQueueListenerContainer create(String queue, int concurrency, QueueMessageHandler handler) {
		return new DefaultQueueListenerContainer(queue, concurrency, handler, this.setup);
	}

	/**
	 * Stops extending the visibility of messages in hand (their containers are stopped
	 * first, with the application context).
	 */
	@Override
	public void destroy() {
		this.renewer.shutdown();
	}

}
