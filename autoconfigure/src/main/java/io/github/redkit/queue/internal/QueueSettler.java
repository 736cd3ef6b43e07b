package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueSettings;
import org.apache.commons.logging.LogFactory;

import org.springframework.util.Assert;

/**
 * Settles the messages a {@link RedisQueueTemplate} handed out (acknowledges, extends,
 * fails or gives back each) through the store of its queue, without waiting for Redis: it
 * decides what a failure does (retry after a backoff, dead-letter, drop) and records what
 * Redis answered.
 */
final class QueueSettler {

	/**
	 * Warns as the template it serves: the log categories an application configures stay
	 * those of the template.
	 */
	private final TrimmedWarnings trimmedWarnings = new TrimmedWarnings(LogFactory.getLog(RedisQueueTemplate.class));

	private final QueueStores stores;

	private final ListQueueStore lists;

	private final StreamQueueStore streams;

	private final QueueEvents events;

	QueueSettler(QueueStores stores, QueueEvents events) {
		this.stores = stores;
		this.lists = stores.lists();
		this.streams = stores.streams();
		this.events = events;
	}

	CompletableFuture<Boolean> ack(QueueMessage<?> message) {
		if (TakenMessage.of(message).trimmed()) {
			// reported and acknowledged when its extend, release or retry found it gone
			return CompletableFuture.completedFuture(false);
		}
		CompletableFuture<Long> removal = isStream(message.queue())
				? this.streams.ack(keys(message.queue()), settings(message.queue()), TakenMessage.of(message))
					.thenApply((acked) -> acked ? 1L : 0L)
				: this.lists.ack(keys(message.queue()), TakenMessage.of(message));
		return removal.thenApply((removed) -> {
			boolean acked = removed != null && removed > 0;
			this.events.acknowledged(message.queue(), List.of(message), acked ? 1 : 0);
			return acked;
		});
	}

	CompletableFuture<Boolean> extend(QueueMessage<?> message, Duration visibility) {
		Assert.isTrue(visibility != null && visibility.toMillis() > 0, "visibility must be at least 1 ms");
		if (isStream(message.queue())) {
			// XAUTOCLAIM claims what has been idle for the visibility timeout: a take can
			// be made younger, never younger than just delivered
			Duration timeout = settings(message.queue()).visibilityTimeout();
			Assert.isTrue(visibility.compareTo(timeout) <= 0,
					() -> "visibility must not exceed the visibility timeout"
							+ " of a stream queue (redkit.queue.queues." + message.queue() + ".visibility-timeout="
							+ timeout + ")");
			TakenMessage<?> taken = TakenMessage.of(message);
			return this.streams
				.idle(keys(message.queue()), settings(message.queue()), taken,
						timeout.toMillis() - visibility.toMillis(), taken.deliveries())
				.thenApply((done) -> held(taken, done));
		}
		return this.lists.extend(keys(message.queue()), TakenMessage.of(message), visibility);
	}

	CompletableFuture<FailureOutcome> fail(QueueMessage<?> message, Throwable error, boolean exhausted) {
		QueueSettings queue = settings(message.queue());
		boolean last = exhausted || !queue.allowsDelivery(message.deliveries() + 1);
		String mode = !last ? "retry" : queue.deadLetter() ? "dead" : "drop";
		long backoff = last ? 0 : queue.backoff().delayAfter(message.deliveries()).toMillis();
		CompletableFuture<Long> settled = isStream(message.queue())
				? this.streams.fail(keys(message.queue()), queue, TakenMessage.of(message), mode, backoff,
						describe(error))
				: this.lists.fail(keys(message.queue()), queue, message, mode, backoff, describe(error));
		return settled.thenApply((result) -> {
			if (result != null && result == StreamQueueStore.TRIMMED_RETRY) {
				// nothing left to deliver again: lost by the trim
				this.events.failed(message.queue());
				trimmed(TakenMessage.of(message));
				return FailureOutcome.DROPPED;
			}
			FailureOutcome outcome = switch ((result != null) ? result.intValue() : 0) {
				case 1 -> FailureOutcome.RETRIED;
				case 2 -> FailureOutcome.DEAD_LETTERED;
				case 3 -> FailureOutcome.DROPPED;
				default -> FailureOutcome.NOT_OWNED;
			};
			this.events.failed(message.queue(), outcome);
			return outcome;
		});
	}

	CompletableFuture<Boolean> release(QueueMessage<?> message) {
		QueueKeys k = keys(message.queue());
		if (isStream(message.queue())) {
			// idle for the whole timeout: the next take claims it first, and the claim
			// counts again the delivery taken back here
			TakenMessage<?> taken = TakenMessage.of(message);
			return this.streams
				.idle(k, settings(message.queue()), taken, settings(message.queue()).visibilityTimeout().toMillis(),
						taken.deliveries() - 1)
				.thenApply((done) -> held(taken, done));
		}
		return this.lists.release(k, settings(message.queue()), TakenMessage.of(message));
	}

	/**
	 * What an extend or a release of a stream take answered; a take whose entry was
	 * deleted from the stream while held is reported ({@code outcome=trimmed}, and a WARN
	 * once a while) once.
	 */
	private boolean held(TakenMessage<?> taken, long done) {
		if (done == StreamQueueStore.TRIMMED) {
			trimmed(taken);
			return false;
		}
		return done == 1L;
	}

	/**
	 * A held message whose stream entry was deleted by a writer (a send's max-length
	 * trim, XTRIM, XDEL): it was acknowledged, as nothing is left to deliver.
	 */
	private void trimmed(TakenMessage<?> taken) {
		taken.markTrimmed();
		this.events.trimmed(taken.queue());
		this.trimmedWarnings.trimmed(taken.queue(), taken.id());
	}

	private static String describe(Throwable error) {
		String text = error.getClass().getName() + ((error.getMessage() != null) ? ": " + error.getMessage() : "");
		return (text.length() > 2000) ? text.substring(0, 2000) : text;
	}

	private boolean isStream(String queue) {
		return this.stores.isStream(queue);
	}

	private QueueKeys keys(String queue) {
		return this.stores.keys(queue);
	}

	private QueueSettings settings(String queue) {
		return this.stores.settings(queue);
	}

}
