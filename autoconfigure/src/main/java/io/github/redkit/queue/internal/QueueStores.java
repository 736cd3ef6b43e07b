package io.github.redkit.queue.internal;

import java.util.function.Function;

import io.github.redkit.queue.QueueSettings;
import io.github.redkit.queue.QueueStore;

/**
 * The two stores of a {@link RedisQueueTemplate}'s queues, with what says which one a
 * queue is kept in (its settings' {@code store}) and the queue's keys.
 *
 * @param lists the list store
 * @param streams the stream store
 * @param settings the settings of each queue by name
 * @param keys the keys of each queue by name
 */
record QueueStores(ListQueueStore lists, StreamQueueStore streams, Function<String, QueueSettings> settings,
		Function<String, QueueKeys> keys) {

	boolean isStream(String queue) {
		return settings(queue).store() == QueueStore.STREAM;
	}

	QueueSettings settings(String queue) {
		return this.settings.apply(queue);
	}

	QueueKeys keys(String queue) {
		return this.keys.apply(queue);
	}

}
