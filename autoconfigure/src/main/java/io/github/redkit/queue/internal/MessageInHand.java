package io.github.redkit.queue.internal;

import io.github.redkit.queue.QueueMessage;

/**
 * A message a {@link QueueConsumer} took out of the queue, in hand: whichever of the
 * consumer thread and a stop that timed out takes it out of hand first settles it.
 *
 * @param message the message
 * @param stage what the consumer thread does with it
 */
record MessageInHand(QueueMessage<Object> message, Stage stage) {

	/**
	 * What the consumer thread does with the message in hand.
	 */
	enum Stage {

		/** Extends it or starts its heartbeat: its listener has not started. */
		STARTING,

		/** Runs its listener. */
		LISTENING,

		/** Its listener returned: it is about to be pending acknowledgement. */
		HANDLED,

		/** Fails it (its listener failed, or it was delivered too often). */
		FAILING

	}

}
