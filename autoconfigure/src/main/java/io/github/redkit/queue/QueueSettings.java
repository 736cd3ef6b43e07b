package io.github.redkit.queue;

import java.time.Duration;

/**
 * The behaviour of one queue.
 *
 * @param order FIFO or LIFO
 * @param visibilityTimeout how long a taken message stays invisible before it is
 * delivered again when it is neither acknowledged nor failed
 * @param maxAttempts deliveries a message gets in all, the first one included; then a
 * failing message is dead-lettered (or dropped)
 * @param backoff the delay before a failed message is delivered again
 * @param deadLetter whether exhausted messages are kept in the dead-letter queue
 * @param deadLetterRetention how long dead letters are kept
 * @param collapse what {@link QueueTemplate#sendDelayed} does with a repeated payload
 */
public record QueueSettings(QueueOrder order, Duration visibilityTimeout, int maxAttempts, BackoffPolicy backoff,
		boolean deadLetter, Duration deadLetterRetention, CollapsePolicy collapse) {

	/**
	 * Whether a message may be handled on this delivery: the one home of the rule that
	 * {@code max-attempts} counts every delivery. A failure on the last allowed delivery
	 * dead-letters the message; a delivery past it (its earlier consumers died with it)
	 * is dead-lettered without being handled.
	 * @param delivery the delivery number, 1 for the first
	 * @return {@code true} while attempts are left
	 */
	public boolean allowsDelivery(int delivery) {
		return delivery <= this.maxAttempts;
	}

}
