package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.LeaseRenewer;
import io.github.redkit.core.internal.RedkitThreads;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueReceiver;
import io.github.redkit.queue.QueueSettings;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.QueueTemplate;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * What every consumer of a {@link QueueListenerContainerFactory}'s containers works with.
 *
 * @param template settles messages (ack, fail, release)
 * @param receiver takes messages
 * @param listening the settings of each queue by name, the poll and shutdown timeouts
 * @param readyLists where consumers wait for messages on the queues' ready lists
 * @param events what is told how long handlers ran
 * @param observations where the handling of each message is observed
 * @param renewer keeps the messages in hand invisible while they are handled
 */
record ConsumerSetup(QueueTemplate template, QueueReceiver receiver, QueueListenerSettings listening,
		ReadyLists readyLists, QueueEvents events, RedkitObservations observations, LeaseRenewer renewer) {

	Function<String, QueueSettings> settings() {
		return this.listening.queues();
	}

	Duration pollTimeout() {
		return this.listening.pollTimeout();
	}

	Duration shutdownTimeout() {
		return this.listening.shutdownTimeout();
	}

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
		QueueMessage<?> taken = ConvertedMessage.taken(message);
		if (this.template instanceof RedisQueueTemplate redis) {
			return redis.extendAsync(taken, visibility);
		}
		// an application's own template answers on the renewer's thread
		return CompletableFuture.completedFuture(this.template.extend(taken, visibility));
	}

	/**
	 * Gives a message back to its queue without waiting for Redis on the caller's thread.
	 * @param message the message
	 * @return whether it was given back, once Redis answered
	 */
	CompletableFuture<Boolean> release(QueueMessage<?> message) {
		QueueMessage<?> taken = ConvertedMessage.taken(message);
		return call((redis) -> redis.releaseAsync(taken), () -> this.template.release(taken));
	}

	/**
	 * Acknowledges a message without waiting for Redis on the caller's thread.
	 * @param message the message
	 * @return whether its take was still in flight, once Redis answered
	 */
	CompletableFuture<Boolean> ack(QueueMessage<?> message) {
		QueueMessage<?> taken = ConvertedMessage.taken(message);
		return call((redis) -> redis.ackAsync(taken), () -> this.template.ack(taken));
	}

	/**
	 * Reports a failed message without waiting for Redis on the caller's thread.
	 * @param message the message
	 * @param error why
	 * @return what happened to it, once Redis answered
	 */
	CompletableFuture<FailureOutcome> fail(QueueMessage<?> message, Throwable error) {
		QueueMessage<?> taken = ConvertedMessage.taken(message);
		return call((redis) -> redis.failAsync(taken, error, false), () -> this.template.fail(taken, error));
	}

	/**
	 * Extends a message's visibility without waiting for Redis on the caller's thread.
	 * @param message the message
	 * @param visibility how long it stays invisible from now on
	 * @return {@code false} when its take was lost, once Redis answered
	 */
	CompletableFuture<Boolean> extendNow(QueueMessage<?> message, Duration visibility) {
		QueueMessage<?> taken = ConvertedMessage.taken(message);
		return call((redis) -> redis.extendAsync(taken, visibility), () -> this.template.extend(taken, visibility));
	}

	/**
	 * Sends a call without waiting for Redis: Redkit's template writes it at once, an
	 * application's own template answers on a thread of its own.
	 */
	private <T> CompletableFuture<T> call(Function<RedisQueueTemplate, CompletableFuture<T>> own, Supplier<T> other) {
		try {
			if (this.template instanceof RedisQueueTemplate redis) {
				return own.apply(redis);
			}
			return CompletableFuture.supplyAsync(other,
					(task) -> RedkitThreads.newThread("redkit-queue-settle", task, true).start());
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	ReadyListWait readyListWait(String queue, QueueSettings settings) {
		QueueKeys keys = QueueKeys.of(this.readyLists.keyspace(), queue, settings);
		if (settings.store() == QueueStore.STREAM) {
			return ReadyListWait.onStream(this.readyLists.connectionFactory(), keys.stream(),
					StreamQueueStore.group(settings), this.readyLists.poolShare());
		}
		return new ReadyListWait(this.readyLists.connectionFactory(), keys.ready(), settings.order(),
				this.readyLists.poolShare());
	}

	/**
	 * Where consumers wait for messages: blocking connections on the queues' ready lists.
	 *
	 * @param connectionFactory where the blocking connections come from
	 * @param keyspace the keyspace of the queues' keys
	 * @param poolShare the connections of the factory's pool the consumers keep for their
	 * waits, {@code null} without a pool
	 */
	record ReadyLists(RedisConnectionFactory connectionFactory, RedisKeyspace keyspace,
			@Nullable PooledWaitShare poolShare) {

		ReadyLists(RedisConnectionFactory connectionFactory, RedisKeyspace keyspace) {
			this(connectionFactory, keyspace, PooledWaitShare.of(connectionFactory));
		}

	}

}
