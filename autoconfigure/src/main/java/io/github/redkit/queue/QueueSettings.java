package io.github.redkit.queue;

import java.time.Duration;

/**
 * The behaviour of one queue.
 *
 * @param order FIFO or LIFO
 * @param visibilityTimeout how long a taken message stays invisible before it is
 * delivered again when it is neither acknowledged nor failed
 * @param maxAttempts deliveries before a failing message is dead-lettered (or dropped)
 * @param backoff the delay before a failed message is delivered again
 * @param deadLetter whether exhausted messages are kept in the dead-letter queue
 * @param deadLetterRetention how long dead letters are kept
 * @param collapse what {@link QueueTemplate#sendDelayed} does with a repeated payload
 */
public record QueueSettings(QueueOrder order, Duration visibilityTimeout, int maxAttempts, BackoffPolicy backoff,
		boolean deadLetter, Duration deadLetterRetention, CollapsePolicy collapse) {

	/** The settings of a queue nobody configured. */
	public static final QueueSettings DEFAULTS = new QueueSettings(QueueOrder.FIFO, Duration.ofSeconds(30), 5,
			new BackoffPolicy(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(5), 0.2), true, Duration.ofDays(7),
			CollapsePolicy.NONE);

}
