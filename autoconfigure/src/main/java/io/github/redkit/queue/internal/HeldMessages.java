package io.github.redkit.queue.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.github.redkit.core.internal.LeaseRenewer;
import io.github.redkit.core.internal.RedkitThreads;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueReceiver;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link QueueConsumer} holds besides the message in its hand: the messages it
 * took and has not handled yet (all of one batch), and those it handled, whose
 * acknowledgement its next take carries (one round trip). Settled at the consumer's end,
 * or by a stop that took its message in hand ({@link #flush}); read and written by one
 * thread at a time (the consumer thread, or the stop that took its message in hand).
 */
final class HeldMessages {

	/**
	 * Logs as the consumer it serves: the log categories an application configures stay
	 * those of the consumer.
	 */
	private static final Log logger = LogFactory.getLog(QueueConsumer.class);

	private final String queue;

	private final ConsumerSetup setup;

	private final ConsumerCalls calls;

	private final long visibilityNanos;

	/**
	 * Taken and not yet handled, all of one batch.
	 */
	private final Deque<QueueMessage<Object>> prefetched = new ArrayDeque<>();

	/**
	 * When the batch in {@link #prefetched} may start to expire: its take was sent at
	 * this {@link System#nanoTime()} minus the visibility timeout (less how long Redis
	 * had held the batch, for a take sent again that hands over what the first one
	 * delivered), so no later than on the Redis clock.
	 */
	private long prefetchedExpiry;

	/**
	 * When a prefetched message has waited a third of its visibility timeout: from then
	 * on it is extended before its listener starts.
	 */
	private long prefetchedRenewal;

	/**
	 * The last take carried {@link #pendingAcks} and failed: not answered (Redis may have
	 * applied it), or answered with an error (a stream take records the acknowledgements
	 * it applied before the error): they go under its name, whose record answers them.
	 */
	private boolean takeFailed;

	/**
	 * Handled and not yet acknowledged: the next take acknowledges them (one round trip).
	 */
	private final List<QueueMessage<Object>> pendingAcks = new ArrayList<>();

	/**
	 * The heartbeats of {@link #pendingAcks}, stopped once their acknowledgement is sent.
	 */
	private final List<LeaseRenewer.Renewal> pendingRenewals = new ArrayList<>();

	HeldMessages(String queue, ConsumerSetup setup, ConsumerCalls calls, long visibilityNanos) {
		this.queue = queue;
		this.setup = setup;
		this.calls = calls;
		this.visibilityNanos = visibilityNanos;
	}

	/**
	 * Handled and not yet acknowledged: what the next take carries.
	 * @return the messages, in the order they were handled
	 */
	List<QueueMessage<Object>> pendingAcks() {
		return this.pendingAcks;
	}

	/**
	 * The take that carried {@link #pendingAcks} answered, or failed: one that failed
	 * carrying them leaves them under its name.
	 * @param failed whether it failed
	 */
	void taken(boolean failed) {
		this.takeFailed = failed && !this.pendingAcks.isEmpty();
	}

	/**
	 * A message's listener returned: kept invisible until the next take sends its
	 * acknowledgement.
	 * @param message the message
	 * @param renewal its heartbeat
	 */
	void handled(QueueMessage<Object> message, LeaseRenewer.Renewal renewal) {
		this.pendingAcks.add(message);
		this.pendingRenewals.add(renewal);
	}

	/**
	 * Keeps a batch a take handed out, to handle in turn.
	 * @param batch the messages
	 * @param sentAt when the take was sent ({@link System#nanoTime()})
	 */
	void prefetched(List<QueueMessage<Object>> batch, long sentAt) {
		this.prefetched.addAll(batch);
		long deliveredAt = sentAt - heldNanos(batch);
		this.prefetchedExpiry = deliveredAt + this.visibilityNanos;
		this.prefetchedRenewal = deliveredAt + this.visibilityNanos / 3;
	}

	/**
	 * How long Redis had held the longest held of a batch when it handed it over: a take
	 * sent again after one not answered hands over what the first one delivered, whose
	 * visibility timeout runs from then (0 for a template other than Redkit's).
	 */
	private static long heldNanos(List<QueueMessage<Object>> batch) {
		long held = 0;
		for (QueueMessage<Object> message : batch) {
			if (ConvertedMessage.taken(message) instanceof TakenMessage<?> taken) {
				held = Math.max(held, taken.heldMillis());
			}
		}
		return TimeUnit.MILLISECONDS.toNanos(held);
	}

	@Nullable QueueMessage<Object> nextPrefetched() {
		if (this.prefetched.isEmpty()) {
			return null;
		}
		if (System.nanoTime() - this.prefetchedExpiry >= 0) {
			// their visibility timeout may have passed: another consumer may have them
			// now
			logger.debug("Leaving " + this.prefetched.size() + " prefetched messages of queue '" + this.queue
					+ "' whose visibility timeout passed before they were handled");
			this.prefetched.clear();
			return null;
		}
		return this.prefetched.poll();
	}

	/**
	 * Whether a prefetched message has waited a third of its visibility timeout: it is
	 * extended before its listener starts.
	 * @return {@code true} once it has
	 */
	boolean renewalDue() {
		return System.nanoTime() - this.prefetchedRenewal >= 0;
	}

	/**
	 * Whether nothing is held: nothing handled waits for its acknowledgement, nothing
	 * prefetched for its listener.
	 * @return {@code true} when there is nothing to settle
	 */
	boolean isEmpty() {
		return this.pendingAcks.isEmpty() && this.prefetched.isEmpty();
	}

	/**
	 * Settles what the consumer handled and prefetched: the acknowledgements of the
	 * handled messages and the give-backs of the prefetched ones, sent side by side; none
	 * starts once the stop returned ({@link ConsumerCalls#send}).
	 * @param killed whether the consumer was killed (it then sends nothing)
	 * @param givenUp what the take a stop gave up, carrying the pending acknowledgements,
	 * may have sent; {@code null} when none was given up or the one given up sent nothing
	 * (refused, or Redkit's failing before its claim started: they are sent here)
	 * @param resend sends a take of at most one message carrying the given
	 * acknowledgements, under the name of the take that failed carrying them
	 * @return the calls under way
	 */
	CompletableFuture<?> flush(boolean killed, @Nullable GivenUpTake givenUp,
			Function<List<QueueMessage<Object>>, QueueReceiver.Batch> resend) {
		List<CompletableFuture<?>> sent = new ArrayList<>();
		if (!killed && !this.pendingAcks.isEmpty() && givenUp != null) {
			// the take did not end within shutdown-timeout: sending more would wait as
			// long
			logger.warn("Consumer of queue '" + this.queue + "' stopped while its take waited; the "
					+ this.pendingAcks.size() + " acknowledgement(s) it carried " + ids(this.pendingAcks)
					+ " are applied if " + givenUp.appliedIf
					+ ", else those messages come back after their visibility timeout");
		}
		else if (!killed && this.takeFailed) {
			sent.add(ackUnderFailedTake(List.copyOf(this.pendingAcks), resend));
		}
		else if (!killed) {
			for (QueueMessage<Object> message : this.pendingAcks) {
				sent.add(this.calls.send(() -> this.setup.ack(message), message, "acknowledge"));
			}
		}
		acknowledged();
		if (!killed && !this.prefetched.isEmpty()) {
			// taken and not started: back to the queue at once, their deliveries not
			// counted, rather than in flight until their visibility timeout
			List<QueueMessage<Object>> unhandled = new ArrayList<>(this.prefetched);
			this.prefetched.clear();
			sent.add(giveBack(unhandled));
		}
		return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new));
	}

	/**
	 * Sends the pending acknowledgements that a failed take carried with one take of at
	 * most one message, under that take's name ({@link RedisQueueTemplate} reuses it), on
	 * a thread of its own: should Redis have applied the first (or recorded the
	 * acknowledgements it applied before an error), it answers what that one acknowledged
	 * and took (its whole batch), so none is reported late, as each acknowledgement sent
	 * alone would be. What the take hands out goes back to the queue at once. A take
	 * under that name answered with an error twice (the second reads what the first
	 * recorded) applied nothing: the acknowledgements then go each on its own.
	 */
	private CompletableFuture<?> ackUnderFailedTake(List<QueueMessage<Object>> acks,
			Function<List<QueueMessage<Object>>, QueueReceiver.Batch> resend) {
		return CompletableFuture.runAsync(() -> {
			QueueReceiver.Batch taken = null;
			for (int attempt = 1; taken == null; attempt++) {
				try {
					if (!this.calls.startResend()) {
						logger.warn("Consumer of queue '" + this.queue + "' stopped before it could acknowledge "
								+ ids(acks) + "; they come back after their visibility timeout");
						return;
					}
					try {
						taken = resend.apply(acks);
					}
					finally {
						this.calls.endResend();
					}
				}
				catch (RuntimeException ex) {
					if (QueueClaims.unanswered(ex)) {
						logger.warn("Cannot acknowledge messages " + ids(acks) + " of queue '" + this.queue
								+ "'; they come back after their visibility timeout unless Redis ran the take that"
								+ " carried them", ex);
						return;
					}
					if (attempt == 2) {
						ConsumerCalls.awaitQuietly(CompletableFuture.allOf(acks.stream()
							.map((message) -> this.calls.send(() -> this.setup.ack(message), message, "acknowledge"))
							.toArray(CompletableFuture[]::new)));
						return;
					}
				}
			}
			ConsumerCalls.awaitQuietly(giveBack(taken.messages()));
		}, (task) -> RedkitThreads.newThread("redkit-queue-" + this.queue + "-settle", task, true).start());
	}

	private static List<String> ids(List<QueueMessage<Object>> messages) {
		return messages.stream().map(QueueMessage::id).toList();
	}

	/**
	 * The acknowledgements of {@link #pendingAcks} were sent: their heartbeats stop.
	 */
	void acknowledged() {
		this.pendingAcks.clear();
		this.pendingRenewals.forEach(LeaseRenewer.Renewal::stop);
		this.pendingRenewals.clear();
	}

	/**
	 * Puts a message of the batch back at the head of {@link #prefetched}, where it was
	 * taken from: the consumer's end gives it back with the rest, in their order
	 * ({@link #flush}).
	 * @param message the message
	 */
	void putBack(QueueMessage<Object> message) {
		this.prefetched.addFirst(message);
	}

	/**
	 * How many prefetched messages wait for their listener.
	 * @return the count
	 */
	int prefetchedCount() {
		return this.prefetched.size();
	}

	/**
	 * Takes the prefetched messages out of {@link #prefetched}, behind a message of their
	 * batch taken before them: given back together, one after another, they keep their
	 * order.
	 */
	List<QueueMessage<Object>> withPrefetched(QueueMessage<Object> message) {
		List<QueueMessage<Object>> unhandled = new ArrayList<>();
		unhandled.add(message);
		unhandled.addAll(this.prefetched);
		this.prefetched.clear();
		return unhandled;
	}

	/**
	 * Gives unhandled messages back to the queue, their deliveries not counted, one after
	 * another (each at the head of its end of the list: the last first, so that the batch
	 * keeps its order), none after the stop returned; once one cannot be given back, the
	 * others are left in flight too rather than each waiting for Redis as long.
	 * @return the give-backs under way
	 */
	CompletableFuture<?> giveBack(List<QueueMessage<Object>> unhandled) {
		CompletableFuture<?> sent = CompletableFuture.completedFuture(null);
		for (int i = unhandled.size() - 1; i >= 0; i--) {
			QueueMessage<Object> back = unhandled.get(i);
			sent = sent.thenCompose((previous) -> this.calls.send(() -> this.setup.release(back), back, "give back"));
		}
		return sent;
	}

	/**
	 * What a take a stop gave up may have sent of the acknowledgements it carried.
	 */
	enum GivenUpTake {

		/**
		 * Redkit's, whose claim started: sent, waiting for Redis' answer.
		 */
		SENT("Redis ran it"),

		/**
		 * An application's own template's, which may have failed before or after its call
		 * reached Redis.
		 */
		MAYBE_SENT("its template sent it and Redis ran it");

		private final String appliedIf;

		GivenUpTake(String appliedIf) {
			this.appliedIf = appliedIf;
		}

	}

}
