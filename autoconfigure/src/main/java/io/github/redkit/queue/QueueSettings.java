package io.github.redkit.queue;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

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
 * @param prefetch how many messages a listener consumer takes per round trip (their
 * visibility timeouts start together, at the take)
 * @param store the structure the messages are kept in
 * @param maxLength the length a stream store trims its stream to on each send (oldest
 * first, delivered or not); 0 = never trimmed; the list store takes only 0
 * @param existingStream the stream another application writes that a stream queue reads,
 * {@code null} = the queue's own stream, written by its senders
 */
public record QueueSettings(QueueOrder order, Duration visibilityTimeout, int maxAttempts, BackoffPolicy backoff,
		boolean deadLetter, Duration deadLetterRetention, CollapsePolicy collapse, int prefetch, QueueStore store,
		long maxLength, @Nullable ExistingStream existingStream) {

	/**
	 * The most messages one take may hand out: keeps the take script and its reply short.
	 */
	public static final int MAX_PREFETCH = 1000;

	/**
	 * Checks the prefetch.
	 */
	public QueueSettings {
		if (prefetch < 1 || prefetch > MAX_PREFETCH) {
			throw new IllegalArgumentException("prefetch must be between 1 and " + MAX_PREFETCH);
		}
		if (maxLength < 0 || (maxLength > 0 && store != QueueStore.STREAM)) {
			throw new IllegalArgumentException("maxLength must be 0, or positive for the stream store");
		}
		if (existingStream != null && (store != QueueStore.STREAM || maxLength != 0)) {
			// the other application's stream is never trimmed by Redkit
			throw new IllegalArgumentException("existingStream needs the stream store and a maxLength of 0");
		}
	}

	/**
	 * Settings without an existing stream.
	 * @param order FIFO or LIFO
	 * @param visibilityTimeout how long a taken message stays invisible
	 * @param maxAttempts deliveries a message gets in all
	 * @param backoff the delay before a failed message is delivered again
	 * @param deadLetter whether exhausted messages are kept in the dead-letter queue
	 * @param deadLetterRetention how long dead letters are kept
	 * @param collapse what {@link QueueTemplate#sendDelayed} does with a repeated payload
	 * @param prefetch how many messages a listener consumer takes per round trip
	 * @param store the structure the messages are kept in
	 * @param maxLength the length a stream store trims its stream to, 0 = never trimmed
	 */
	public QueueSettings(QueueOrder order, Duration visibilityTimeout, int maxAttempts, BackoffPolicy backoff,
			boolean deadLetter, Duration deadLetterRetention, CollapsePolicy collapse, int prefetch, QueueStore store,
			long maxLength) {
		this(order, visibilityTimeout, maxAttempts, backoff, deadLetter, deadLetterRetention, collapse, prefetch, store,
				maxLength, null);
	}

	/**
	 * Settings of a list queue.
	 * @param order FIFO or LIFO
	 * @param visibilityTimeout how long a taken message stays invisible
	 * @param maxAttempts deliveries a message gets in all
	 * @param backoff the delay before a failed message is delivered again
	 * @param deadLetter whether exhausted messages are kept in the dead-letter queue
	 * @param deadLetterRetention how long dead letters are kept
	 * @param collapse what {@link QueueTemplate#sendDelayed} does with a repeated payload
	 * @param prefetch how many messages a listener consumer takes per round trip
	 */
	public QueueSettings(QueueOrder order, Duration visibilityTimeout, int maxAttempts, BackoffPolicy backoff,
			boolean deadLetter, Duration deadLetterRetention, CollapsePolicy collapse, int prefetch) {
		this(order, visibilityTimeout, maxAttempts, backoff, deadLetter, deadLetterRetention, collapse, prefetch,
				QueueStore.LIST, 0);
	}

	/**
	 * Settings whose listener consumers take one message per round trip.
	 * @param order FIFO or LIFO
	 * @param visibilityTimeout how long a taken message stays invisible
	 * @param maxAttempts deliveries a message gets in all
	 * @param backoff the delay before a failed message is delivered again
	 * @param deadLetter whether exhausted messages are kept in the dead-letter queue
	 * @param deadLetterRetention how long dead letters are kept
	 * @param collapse what {@link QueueTemplate#sendDelayed} does with a repeated payload
	 */
	public QueueSettings(QueueOrder order, Duration visibilityTimeout, int maxAttempts, BackoffPolicy backoff,
			boolean deadLetter, Duration deadLetterRetention, CollapsePolicy collapse) {
		this(order, visibilityTimeout, maxAttempts, backoff, deadLetter, deadLetterRetention, collapse, 1);
	}

	/**
	 * The same settings kept in another store.
	 * @param store the store
	 * @param maxLength the stream's trimmed length, 0 = never trimmed
	 * @return the settings
	 */
	public QueueSettings withStore(QueueStore store, long maxLength) {
		return new QueueSettings(this.order, this.visibilityTimeout, this.maxAttempts, this.backoff, this.deadLetter,
				this.deadLetterRetention, this.collapse, this.prefetch, store, maxLength, null);
	}

	/**
	 * The same settings reading a stream another application writes (in the stream store,
	 * never trimmed).
	 * @param stream the stream and how to read it
	 * @return the settings
	 */
	public QueueSettings withExistingStream(ExistingStream stream) {
		return new QueueSettings(this.order, this.visibilityTimeout, this.maxAttempts, this.backoff, this.deadLetter,
				this.deadLetterRetention, this.collapse, this.prefetch, QueueStore.STREAM, 0, stream);
	}

	/**
	 * The longest delay a retry may wait, jitter included: after the failure of the last
	 * delivery but one (the last one is dead-lettered, not retried).
	 * @return the longest backoff
	 */
	public Duration longestBackoff() {
		if (this.maxAttempts < 2) {
			return Duration.ZERO;
		}
		double millis = this.backoff.delay().toMillis() * Math.pow(this.backoff.multiplier(), this.maxAttempts - 2);
		millis = Math.min(millis, this.backoff.maxDelay().toMillis()) * (1 + this.backoff.jitter());
		return Duration.ofMillis((long) Math.ceil(millis));
	}

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
