package io.github.redkit.queue;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * How listener consumers take messages from a {@link QueueTemplate} that offers more than
 * its public methods: payloads of generic types, an unreadable message settled at once,
 * and how long until a delayed or expired message becomes ready (so that an idle consumer
 * wakes up in time). Redkit's template implements it; a template that does not is used
 * through {@link QueueTemplate#receive} and {@link QueueTemplate#ackAndReceive}, and its
 * idle consumers notice delayed and expired messages within the poll timeout. A subclass
 * of Redkit's template that changes how messages are taken overrides {@link #take} too.
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
	 * Acknowledges handled messages and takes up to {@code max} ready ones of a queue,
	 * without waiting. Redkit's template does it in one round trip; this default takes
	 * one message per acknowledged one and then one per call.
	 * @param queue the queue name
	 * @param payloadType the payload type, possibly generic
	 * @param done handled messages of this queue to acknowledge first, at most
	 * {@code max}
	 * @param max how many to take at most, at least 1
	 * @return the messages, or how long to wait for one
	 */
	default Batch take(String queue, Type payloadType, List<? extends QueueMessage<?>> done, int max) {
		List<QueueMessage<Object>> taken = new ArrayList<>();
		Duration readyIn = Duration.ZERO;
		boolean empty = false;
		for (int i = 0; i < done.size() || (!empty && i < done.size() + max && taken.size() < max); i++) {
			Receipt receipt = take(queue, payloadType, (i < done.size()) ? done.get(i) : null);
			if (receipt.message() != null) {
				taken.add(receipt.message());
			}
			else if (!Duration.ZERO.equals(receipt.readyIn())) {
				empty = true;
				readyIn = receipt.readyIn();
			}
		}
		return new Batch(taken, taken.isEmpty() ? readyIn : null);
	}

	/**
	 * What a batch take found.
	 *
	 * @param messages the messages, each in flight until settled; empty when none was
	 * ready
	 * @param readyIn when there is no message: how long until one may become ready
	 * ({@link Duration#ZERO} = take again at once; {@code null} = nothing is pending)
	 */
	record Batch(List<QueueMessage<Object>> messages, @Nullable Duration readyIn) {

	}

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
