package io.github.redkit.queue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.github.redkit.core.LeaseRenewer;
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
 * @param observations where the handling of each message is observed
 * @param renewer keeps the messages in hand invisible while they are handled
 */
record ConsumerSetup(QueueTemplate template, QueueReceiver receiver, Function<String, QueueSettings> settings,
		RedisConnectionFactory connectionFactory, RedisKeyspace keyspace, QueueEvents events, Duration pollTimeout,
		Duration shutdownTimeout, RedkitObservations observations, LeaseRenewer renewer) {

	/**
	 * Renews the visibility of a message in hand every third of it until the renewal is
	 * stopped or finds the take lost.
	 * @param message the message
	 * @param visibility the visibility each renewal asks for
	 * @param lost called once when the take is found lost
	 * @return the renewal, to stop once the message is settled
	 */
	LeaseRenewer.Renewal keepInvisible(QueueMessage<?> message, Duration visibility, Runnable lost) {
		return this.renewer.start(visibility, () -> extend(message, visibility), lost);
	}

	private CompletableFuture<Boolean> extend(QueueMessage<?> message, Duration visibility) {
		if (this.template instanceof RedisQueueTemplate redis) {
			return redis.extendAsync(message, visibility);
		}
		// an application's own template answers on the renewer's thread
		return CompletableFuture.completedFuture(this.template.extend(message, visibility));
	}

	ReadyListWait readyListWait(String queue, QueueOrder order) {
		return new ReadyListWait(this.connectionFactory, QueueKeys.of(this.keyspace, queue).ready(), order);
	}

}
