package io.github.redkit.queue;

import java.time.Duration;
import java.util.function.Function;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitObservations;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * What every consumer of a {@link QueueListenerContainerFactory}'s containers works with.
 *
 * @param template settles messages (ack, fail, release)
 * @param receiver takes messages
 * @param settings the settings of each queue by name
 * @param connectionFactory where the blocking connections come from
 * @param keyspace the keyspace of the queues' keys
 * @param events what is told how long handlers ran
 * @param pollTimeout the longest blocking wait
 * @param shutdownTimeout how long stopping waits for messages being handled
 */
record ConsumerSetup(QueueTemplate template, QueueReceiver receiver, Function<String, QueueSettings> settings,
		RedisConnectionFactory connectionFactory, RedisKeyspace keyspace, QueueEvents events, Duration pollTimeout,
		Duration shutdownTimeout, RedkitObservations observations) {

	ConsumerSetup withObservations(RedkitObservations observations) {
		return new ConsumerSetup(this.template, this.receiver, this.settings, this.connectionFactory, this.keyspace,
				this.events, this.pollTimeout, this.shutdownTimeout, observations);
	}

	ReadyListWait readyListWait(String queue, QueueOrder order) {
		return new ReadyListWait(this.connectionFactory, QueueKeys.of(this.keyspace, queue).ready(), order);
	}

}
