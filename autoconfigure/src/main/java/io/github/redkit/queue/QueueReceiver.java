package io.github.redkit.queue;

import java.lang.reflect.Type;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * How listener consumers take messages from a {@link QueueTemplate} that offers more than
 * its public methods: payloads of generic types, an unreadable message settled at once,
 * and how long until a delayed or expired message becomes ready (so that an idle consumer
 * wakes up in time). {@link RedisQueueTemplate} implements it; a template that does not
 * is used through {@link QueueTemplate#receive} and {@link QueueTemplate#ackAndReceive},
 * and its idle consumers notice delayed and expired messages within the poll timeout. A
 * subclass of {@code RedisQueueTemplate} that changes how messages are taken overrides
 * {@link #take} too.
 */
public interface QueueReceiver {

	/**
	 * Acknowledges a handled message, if any, and takes the next one of a queue, without
	 * waiting.
	 * @param queue the queue name
	 * @param payloadType the payload type, possibly generic
	 * @param done a handled message of this queue to acknowledge first, or {@code null}
	 * @return the message, or how long to wait for one
	 */
	Receipt take(String queue, Type payloadType, @Nullable QueueMessage<?> done);

	/**
	 * What a take found.
	 *
	 * @param message the message, in flight until settled, or {@code null}
	 * @param readyIn when there is no message: how long until one may become ready
	 * ({@link Duration#ZERO} = take again at once; {@code null} = nothing is pending)
	 */
	record Receipt(@Nullable QueueMessage<Object> message, @Nullable Duration readyIn) {

		/** Nothing was taken, but taking again at once may find something. */
		public static final Receipt AGAIN = new Receipt(null, Duration.ZERO);

		/** Nothing was taken and nothing is pending. */
		public static final Receipt NOTHING = new Receipt(null, null);

	}

}
