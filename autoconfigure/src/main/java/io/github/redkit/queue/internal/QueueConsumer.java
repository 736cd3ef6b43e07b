package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.RedkitOutcomes;
import io.github.redkit.core.internal.LeaseRenewer;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.core.internal.RedkitThreads;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueListenerContainer;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueMessageHandler;
import io.github.redkit.queue.QueueReceiver;
import io.github.redkit.queue.QueueSettings;
import io.github.redkit.queue.RedkitQueueHandleContext;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One consumer thread of a {@link QueueListenerContainer}: take, handle, settle; on an
 * empty queue it waits on the ready list ({@link ReadyListWait}), not by sleep polling. A
 * message's visibility is extended every third of the visibility timeout from the moment
 * its listener starts until its acknowledgement is sent (a heartbeat), so that no other
 * consumer takes it however long the listener runs. With a prefetch above 1 it takes up
 * to that many messages per round trip (the handled ones of the previous batch
 * acknowledged in the same call) and handles them in turn; a prefetched message whose
 * visibility timeout may have passed is left alone, since it may already be delivered
 * elsewhere, one that waited more than a third of it is extended before its listener
 * starts (and left alone if that finds it lost), and prefetched messages left at stop go
 * back to the queue at once. A stop that timed out ({@link #giveBack}) and the consumer
 * thread race for the message in hand (from its pre-start extend until its listener
 * returned, and while it is failed): whichever takes it out of hand first settles it, so
 * a message is either given back or acknowledged (or failed), never both; a listener that
 * had not started by then does not start. No call of the consumer's starts after the stop
 * returned ({@link #closeSettling}). A stop past {@code shutdown-timeout} that finds the
 * consumer waiting for a take gives the take up ({@link #giveUpTake}: the thread is
 * interrupted in that wait, nowhere else). Whatever it hands its template (to settle,
 * extend or give back) is the message as the template handed it out
 * ({@link ConvertedMessage#taken}).
 */
final class QueueConsumer implements Runnable {

	private static final Log logger = LogFactory.getLog(QueueConsumer.class);

	/**
	 * How long a call the consumer makes waits for Redis at most (as the template's own
	 * calls do).
	 */
	private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);

	private static final RedkitOutcomes<Object> HANDLED = RedkitOutcomes.of((message) -> "handled");

	private final String queue;

	private final QueueMessageHandler handler;

	private final QueueReceiver receiver;

	private final QueueSettings settings;

	private final QueueEvents events;

	private final ReadyListWait wait;

	private final RedkitObservations observations;

	private final long pollMillis;

	private final int prefetch;

	private final Duration visibility;

	private final long visibilityNanos;

	private final ConsumerSetup setup;

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

	private volatile boolean running = true;

	private volatile boolean killed;

	/**
	 * The message the consumer thread works on outside a take: one whose listener is
	 * about to start (its pre-start extend, its heartbeat's start) or runs, or one being
	 * failed, until the consumer thread (to go on or settle it) or a stop that timed out
	 * takes it out of hand. A stop that takes it gives it back (unless it is being
	 * failed) and settles what the consumer handled and prefetched before
	 * ({@link #settleAtStop}): from then on the consumer thread sends nothing.
	 */
	private final AtomicReference<@Nullable InHand> inHand = new AtomicReference<>();

	/**
	 * A stop took the message in hand, and with it the settling of {@link #pendingAcks}
	 * and {@link #prefetched}: the consumer thread no longer touches them. Read and
	 * written by the consumer thread only.
	 */
	private boolean settledByStop;

	/**
	 * The stop returned: no call to Redis starts after it (what was not sent comes back
	 * after its visibility timeout). Written under {@link #sending}.
	 */
	private volatile boolean settlingClosed;

	/**
	 * Guards {@link #settlingClosed}: a call starts (Redkit's template writes it at once)
	 * while it is held, so that none starts after the stop returned.
	 */
	private final Object sending = new Object();

	/**
	 * A take resent under a failed take's name is under way ({@link #startResend}).
	 * Guarded by {@link #sending}.
	 */
	private boolean resending;

	private volatile LeaseRenewer.@Nullable Renewal currentRenewal;

	/**
	 * What the consumer thread settles on its own ({@link #awaitSettling}).
	 */
	private volatile CompletableFuture<?> settling = CompletableFuture.completedFuture(null);

	/**
	 * Guards {@link #taking}: a stop interrupts the consumer thread only while it waits
	 * for a take, never once it went on to a listener or a settling.
	 */
	private final Object takeLock = new Object();

	/**
	 * The consumer thread while it waits for a take's answer.
	 */
	private @Nullable Thread taking;

	/**
	 * A stop past {@code shutdown-timeout} gave up the take this consumer waited for.
	 */
	private volatile boolean takeGivenUp;

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

	QueueConsumer(String queue, QueueMessageHandler handler, ConsumerSetup setup) {
		this.queue = queue;
		this.handler = handler;
		this.receiver = setup.receiver();
		this.settings = setup.settings().apply(queue);
		this.events = setup.events();
		this.wait = setup.readyListWait(queue, this.settings);
		this.observations = setup.observations();
		this.pollMillis = Math.max(10, setup.pollTimeout().toMillis());
		this.prefetch = this.settings.prefetch();
		this.visibility = this.settings.visibilityTimeout();
		this.visibilityNanos = this.visibility.toNanos();
		this.setup = setup;
	}

	@Override
	public void run() {
		try {
			while (this.running) {
				try {
					QueueMessage<Object> next = nextPrefetched();
					if (next != null) {
						handle(next);
						continue;
					}
					long sentAt = System.nanoTime();
					QueueReceiver.Batch batch = take(this.prefetch);
					acknowledged();
					if (!batch.messages().isEmpty()) {
						this.prefetched.addAll(batch.messages());
						long deliveredAt = sentAt - heldNanos(batch.messages());
						this.prefetchedExpiry = deliveredAt + this.visibilityNanos;
						this.prefetchedRenewal = deliveredAt + this.visibilityNanos / 3;
					}
					else if (this.running && !Duration.ZERO.equals(batch.readyIn())) {
						await(batch.readyIn());
					}
				}
				catch (RuntimeException ex) {
					if (this.running) {
						logger.warn("Consumer of queue '" + this.queue + "' failed; retrying", ex);
						pause();
					}
				}
			}
		}
		finally {
			if (!this.settledByStop) {
				awaitSettling(flushAck());
			}
			this.wait.close();
		}
	}

	/**
	 * Takes up to {@code max} messages, acknowledging the pending ones, where a stop past
	 * {@code shutdown-timeout} may interrupt the wait; a take not answered leaves them
	 * pending, carried by it.
	 */
	private QueueReceiver.Batch take(int max) {
		synchronized (this.takeLock) {
			this.taking = Thread.currentThread();
		}
		try {
			QueueReceiver.Batch batch = takeBatch(max, this.pendingAcks);
			this.takeFailed = false;
			return batch;
		}
		catch (RuntimeException ex) {
			this.takeFailed = !this.pendingAcks.isEmpty();
			throw ex;
		}
		finally {
			synchronized (this.takeLock) {
				this.taking = null;
				// an interrupt of the stop's ended the take: it reaches nothing after it
				if (this.takeGivenUp) {
					Thread.interrupted();
				}
			}
		}
	}

	private QueueReceiver.Batch takeBatch(int max, List<QueueMessage<Object>> acks) {
		if (this.prefetch == 1) {
			// one message per round trip, through the single take a receiver may override
			// (never for a prefetching consumer: a take sent again under the name of one
			// not answered hands out that one's whole batch)
			QueueReceiver.Receipt receipt = this.receiver.take(this.queue, this.handler.payloadType(),
					acks.isEmpty() ? null : acks.get(0));
			return (receipt.message() != null) ? new QueueReceiver.Batch(List.of(receipt.message()), null)
					: new QueueReceiver.Batch(List.of(), receipt.readyIn());
		}
		return this.receiver.take(this.queue, this.handler.payloadType(), List.copyOf(acks), max);
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

	private @Nullable QueueMessage<Object> nextPrefetched() {
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
	 * Settles what the consumer handled and prefetched: the acknowledgements of the
	 * handled messages and the give-backs of the prefetched ones, sent side by side; none
	 * starts once the stop returned ({@link #send}).
	 * @return the calls under way
	 */
	private CompletableFuture<?> flushAck() {
		List<CompletableFuture<?>> sent = new ArrayList<>();
		if (!this.killed && !this.pendingAcks.isEmpty() && this.takeGivenUp) {
			// Redis did not answer within shutdown-timeout: sending more would
			// wait as long
			logger.warn("Consumer of queue '" + this.queue + "' stopped while its take waited for Redis; the "
					+ this.pendingAcks.size() + " acknowledgement(s) it carried " + ids(this.pendingAcks)
					+ " are applied if Redis ran it, else those messages come back after their visibility timeout");
		}
		else if (!this.killed && this.takeFailed) {
			sent.add(ackUnderFailedTake(List.copyOf(this.pendingAcks)));
		}
		else if (!this.killed) {
			for (QueueMessage<Object> message : this.pendingAcks) {
				sent.add(send(() -> this.setup.ack(message), message, "acknowledge"));
			}
		}
		acknowledged();
		if (!this.killed && !this.prefetched.isEmpty()) {
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
	private CompletableFuture<?> ackUnderFailedTake(List<QueueMessage<Object>> acks) {
		return CompletableFuture.runAsync(() -> {
			QueueReceiver.Batch taken = null;
			for (int attempt = 1; taken == null; attempt++) {
				try {
					if (!startResend()) {
						logger.warn("Consumer of queue '" + this.queue + "' stopped before it could acknowledge "
								+ ids(acks) + "; they come back after their visibility timeout");
						return;
					}
					try {
						taken = takeBatch(1, acks);
					}
					finally {
						endResend();
					}
				}
				catch (RuntimeException ex) {
					if (RedisQueueTemplate.unanswered(ex)) {
						logger.warn("Cannot acknowledge messages " + ids(acks) + " of queue '" + this.queue
								+ "'; they come back after their visibility timeout unless Redis ran the take that"
								+ " carried them", ex);
						return;
					}
					if (attempt == 2) {
						awaitQuietly(CompletableFuture.allOf(acks.stream()
							.map((message) -> send(() -> this.setup.ack(message), message, "acknowledge"))
							.toArray(CompletableFuture[]::new)));
						return;
					}
				}
			}
			awaitQuietly(giveBack(taken.messages()));
		}, (task) -> RedkitThreads.newThread("redkit-queue-" + this.queue + "-settle", task, true).start());
	}

	private static List<String> ids(List<QueueMessage<Object>> messages) {
		return messages.stream().map(QueueMessage::id).toList();
	}

	/**
	 * The acknowledgements of {@link #pendingAcks} were sent: their heartbeats stop.
	 */
	private void acknowledged() {
		this.pendingAcks.clear();
		this.pendingRenewals.forEach(LeaseRenewer.Renewal::stop);
		this.pendingRenewals.clear();
	}

	private void handle(QueueMessage<Object> message) {
		if (!this.settings.allowsDelivery(message.deliveries())) {
			// it outlived its visibility timeout too often (a consumer died with it each
			// time)
			fail(message, new IllegalStateException("Delivered " + message.deliveries()
					+ " times without being acknowledged (visibility timeout expired)"));
			return;
		}
		// in hand from here: a stop that finds this consumer extending the message or
		// starting its heartbeat gives it back and settles the rest
		InHand starting = new InHand(message, Stage.STARTING);
		this.inHand.set(starting);
		if (System.nanoTime() - this.prefetchedRenewal >= 0) {
			Boolean held;
			try {
				held = extend(message);
			}
			catch (RuntimeException ex) {
				if (outOfHand(starting)) {
					throw ex;
				}
				return;
			}
			if (!Boolean.TRUE.equals(held)) {
				if (outOfHand(starting) && held != null) {
					logger.debug("Leaving prefetched message " + message.id() + " of queue '" + this.queue
							+ "': its visibility timeout passed and it was taken again");
				}
				return;
			}
		}
		if (this.inHand.get() != starting) {
			// a stop took it while the extend waited for Redis: it settles it and the
			// rest
			this.settledByStop = true;
			return;
		}
		LeaseRenewer.Renewal renewal;
		try {
			renewal = this.setup.keepInvisible(message, this.visibility,
					() -> logger.debug("Lost message " + message.id() + " of queue '" + this.queue
							+ "' while its listener runs (Redis could not extend its visibility in time):"
							+ " it may be delivered again"));
		}
		catch (RuntimeException ex) {
			// no heartbeat, no handling: left in flight, the message would come back
			// after its visibility timeout with a delivery used up, and again each time
			// this consumer took it, until dead-lettered without any listener failing
			if (outOfHand(starting)) {
				giveBackUnhandled(message, ex);
			}
			return;
		}
		// known before the listener is in hand as running, so that a stop that takes it
		// from then on stops this heartbeat too
		this.currentRenewal = renewal;
		InHand running = new InHand(message, Stage.LISTENING);
		if (!this.running || !this.inHand.compareAndSet(starting, running)) {
			// a stop began: no listener starts after it; this message goes back, unless
			// the stop took it first (then the stop settles it and the rest)
			this.currentRenewal = null;
			renewal.stop();
			if (outOfHand(starting)) {
				awaitSettling(giveBack(withPrefetched(message)));
			}
			return;
		}
		long start = System.nanoTime();
		Throwable failure = null;
		// in scope while the listener runs: its own spans continue the sender's trace
		try {
			this.observations.observe(() -> new RedkitQueueHandleContext(this.queue, message.headers()), () -> {
				this.handler.handle(message);
				return message;
			}, HANDLED);
		}
		catch (Throwable ex) {
			failure = ex;
		}
		// a handled message stays in hand until it is pending acknowledgement, a failed
		// one while it is failed: a stop meanwhile acknowledges the handled one and
		// settles the rest
		InHand settling = new InHand(message, (failure != null) ? Stage.FAILING : Stage.HANDLED);
		boolean settles = this.inHand.compareAndSet(running, settling);
		this.currentRenewal = null;
		if (this.killed || !settles) {
			// killed, or given back by a stop that timed out, which settles the rest
			this.settledByStop = !settles;
			renewal.stop();
			return;
		}
		// not a stop's interrupt (it takes the message out of hand first) nor a kill's
		// (it is marked killed first; one that comes after this line ends the consumer
		// anyway, which no longer runs): the listener's own, which would end this
		// consumer in its next wait and reach the next listener
		if (Thread.interrupted()) {
			logger.debug("Listener of queue '" + this.queue + "' left its thread interrupted on message " + message.id()
					+ "; cleared");
		}
		this.events.handled(this.queue, Duration.ofNanos(System.nanoTime() - start), failure == null);
		if (failure == null) {
			if (!outOfHand(settling)) {
				// the stop acknowledges it
				renewal.stop();
				return;
			}
			// kept invisible until the next take sends the acknowledgement
			this.pendingAcks.add(message);
			this.pendingRenewals.add(renewal);
		}
		else {
			renewal.stop();
			logger.debug("Listener of queue '" + this.queue + "' failed on message " + message.id(), failure);
			failInHand(settling, failure);
		}
	}

	/**
	 * Extends a prefetched message's visibility before its listener starts.
	 * @return {@code false} when its take was lost, {@code null} when the stop returned
	 */
	private @Nullable Boolean extend(QueueMessage<Object> message) {
		return sendAndWait(() -> this.setup.extendNow(message, this.visibility));
	}

	/**
	 * Fails a message the consumer holds in hand meanwhile: a stop then settles the rest
	 * (not this message, which the failure settles).
	 */
	private void fail(QueueMessage<Object> message, Throwable failure) {
		InHand failing = new InHand(message, Stage.FAILING);
		this.inHand.set(failing);
		failInHand(failing, failure);
	}

	private void failInHand(InHand failing, Throwable failure) {
		QueueMessage<Object> message = failing.message();
		FailureOutcome outcome;
		try {
			outcome = sendAndWait(() -> this.setup.fail(message, failure));
		}
		finally {
			outOfHand(failing);
		}
		if (outcome == FailureOutcome.DEAD_LETTERED || outcome == FailureOutcome.DROPPED) {
			// retries are routine (DEBUG above); giving up on a message is not
			logger.warn("Listener of queue '" + this.queue + "' failed on message " + message.id()
					+ " for the last time; it was "
					+ ((outcome == FailureOutcome.DEAD_LETTERED) ? "dead-lettered" : "dropped") + ": " + failure);
		}
	}

	/**
	 * Takes a message out of hand, unless a stop took it first: the stop then settles it
	 * and the rest, and this consumer sends nothing more.
	 * @return whether this consumer still settles it
	 */
	private boolean outOfHand(InHand held) {
		if (this.inHand.compareAndSet(held, null)) {
			return true;
		}
		this.settledByStop = true;
		return false;
	}

	/**
	 * Gives a message whose heartbeat could not start, and the rest of its batch, back to
	 * the queue untouched (their deliveries not counted). A renewer that rejects work was
	 * shut down (its factory destroyed while this consumer still runs): this consumer
	 * stops, since it could keep no message invisible.
	 */
	private void giveBackUnhandled(QueueMessage<Object> message, RuntimeException cause) {
		List<QueueMessage<Object>> unhandled = withPrefetched(message);
		awaitSettling(giveBack(unhandled));
		if (cause instanceof RejectedExecutionException) {
			this.running = false;
			logger.warn("Consumer of queue '" + this.queue + "' stops: its visibility renewer was shut down"
					+ " (its container factory destroyed while it still ran); " + unhandled.size()
					+ " unhandled message(s) given back to the queue");
			return;
		}
		throw cause;
	}

	/**
	 * Takes the prefetched messages out of {@link #prefetched}, behind a message of their
	 * batch taken before them: given back together, one after another, they keep their
	 * order.
	 */
	private List<QueueMessage<Object>> withPrefetched(QueueMessage<Object> message) {
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
	private CompletableFuture<?> giveBack(List<QueueMessage<Object>> unhandled) {
		CompletableFuture<?> sent = CompletableFuture.completedFuture(null);
		for (int i = unhandled.size() - 1; i >= 0; i--) {
			QueueMessage<Object> back = unhandled.get(i);
			sent = sent.thenCompose((previous) -> send(() -> this.setup.release(back), back, "give back"));
		}
		return sent;
	}

	/**
	 * Starts a settling call (an acknowledgement, a give-back) unless the stop returned;
	 * a call that fails is logged.
	 * @param call starts the call
	 * @param message the message it settles
	 * @param what what it does, for the log
	 * @return the call under way, or done when the stop returned
	 */
	private CompletableFuture<?> send(Supplier<CompletableFuture<Boolean>> call, QueueMessage<Object> message,
			String what) {
		CompletableFuture<Boolean> sent;
		try {
			sent = start(call);
		}
		catch (RuntimeException ex) {
			sent = CompletableFuture.failedFuture(ex);
		}
		if (sent == null) {
			logger.warn("Consumer of queue '" + this.queue + "' stopped before it could " + what + " message "
					+ message.id() + "; it comes back after its visibility timeout");
			return CompletableFuture.completedFuture(null);
		}
		return sent.whenComplete((done, ex) -> {
			if (ex != null) {
				logger.warn("Cannot " + what + " message " + message.id() + " of queue '" + this.queue
						+ "'; it comes back after its visibility timeout", RedisScriptRunner.unwrap(ex));
			}
		});
	}

	/**
	 * Makes a call and waits for its answer, unless the stop returned.
	 * @return the answer, or {@code null} when the stop returned
	 */
	private <T> @Nullable T sendAndWait(Supplier<CompletableFuture<T>> call) {
		CompletableFuture<T> sent = start(call);
		return (sent != null) ? RedisScriptRunner.await(sent, CALL_TIMEOUT, "a call of queue '" + this.queue + "'")
				: null;
	}

	/**
	 * Starts a call unless the stop returned: under {@link #sending}, so that none starts
	 * after it (Redkit's template writes it at once).
	 * @return the call under way, or {@code null} when the stop returned
	 */
	private <T> @Nullable CompletableFuture<T> start(Supplier<CompletableFuture<T>> call) {
		synchronized (this.sending) {
			return this.settlingClosed ? null : call.get();
		}
	}

	/**
	 * Waits, on the consumer thread, for what it settles on its own (its end's
	 * acknowledgements and give-backs, a give-back at a stop), which the stop waits for
	 * as well ({@link #settling()}).
	 */
	private void awaitSettling(CompletableFuture<?> sent) {
		this.settling = sent;
		awaitQuietly(sent);
	}

	/**
	 * What the consumer thread settles on its own, under way: a stop waits for it before
	 * it closes settling, within the same bounded wait as for its own give-backs, since
	 * the give-backs of a batch go one after another.
	 * @return the settling under way, or done when there is none
	 */
	CompletableFuture<?> settling() {
		return this.settling;
	}

	/**
	 * Waits for calls under way (each logs its own failure) as long as a call's answer
	 * may take.
	 */
	private static void awaitQuietly(CompletableFuture<?> sent) {
		try {
			sent.get(CALL_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// logged by each call
		}
	}

	private void await(@Nullable Duration hint) {
		this.wait.await((hint != null) ? Math.min(this.pollMillis, hint.toMillis()) : this.pollMillis);
	}

	private void pause() {
		this.wait.close();
		try {
			Thread.sleep(this.pollMillis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.running = false;
		}
	}

	void stop() {
		this.running = false;
	}

	/**
	 * Gives the message in hand back to the queue (one being failed excepted: its failure
	 * settles it), unless the consumer thread took it out of hand first (its listener
	 * returned: it is being settled), without waiting for Redis: a stop gives back the
	 * messages of all its consumers at once. Taking it, the stop also settles what the
	 * consumer handled and prefetched before ({@link #settleAtStop}), since the consumer
	 * thread may stay in its listener, its extend or its failure.
	 * @return the give-back under way, or {@code null} when no message was in hand
	 */
	@Nullable GiveBack giveBack() {
		InHand taken = this.inHand.getAndSet(null);
		if (taken == null) {
			return null;
		}
		stopCurrentRenewal();
		if (taken.stage() == Stage.FAILING) {
			return new GiveBack(null, false, settleAtStop());
		}
		if (taken.stage() == Stage.HANDLED) {
			// its listener returned: acknowledged, not given back
			return new GiveBack(null, false, CompletableFuture
				.allOf(send(() -> this.setup.ack(taken.message()), taken.message(), "acknowledge"), settleAtStop()));
		}
		// given back in the chain of the prefetched ones, last, so that the batch keeps
		// its order at the head of the queue
		List<QueueMessage<Object>> unhandled = withPrefetched(taken.message());
		return new GiveBack(taken.message().id(), taken.stage() == Stage.LISTENING,
				CompletableFuture.allOf(giveBack(unhandled), settleAtStop()));
	}

	/**
	 * Sends, side by side, what the consumer thread would have sent at its end: the
	 * acknowledgements of the messages it handled and the give-backs of those it
	 * prefetched. The stop that took the message in hand owns them (the consumer thread,
	 * in or past its listener, no longer touches them) and waits for them as for the
	 * give-back; none starts after it returned, once Redis' connections may be closed.
	 */
	private CompletableFuture<?> settleAtStop() {
		if (this.pendingAcks.isEmpty() && this.prefetched.isEmpty()) {
			return CompletableFuture.completedFuture(null);
		}
		return flushAck();
	}

	/**
	 * Marks a take resent under a failed take's name as under way, unless the stop
	 * returned: a receiver's take waits for its answer, so it cannot start under
	 * {@link #sending} as the other calls do (a Redis client's thread settling another
	 * message would wait for the lock meanwhile), and the stop waits for it instead
	 * ({@link #closeSettling}).
	 * @return whether the take may be sent
	 */
	private boolean startResend() {
		synchronized (this.sending) {
			if (this.settlingClosed) {
				return false;
			}
			this.resending = true;
			return true;
		}
	}

	private void endResend() {
		synchronized (this.sending) {
			this.resending = false;
			this.sending.notifyAll();
		}
	}

	/**
	 * The stop returned: no call of this consumer's starts after it, and a take resent
	 * under a failed take's name that is under way is answered first (no longer than the
	 * client's command timeout), so that it is not written after the stop returned.
	 */
	void closeSettling() {
		synchronized (this.sending) {
			this.settlingClosed = true;
			while (this.resending) {
				try {
					this.sending.wait();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		}
	}

	/**
	 * Gives up the take the consumer thread waits for, interrupting it there; nothing
	 * else of the consumer's is interrupted.
	 * @return whether it waited for a take
	 */
	boolean giveUpTake() {
		synchronized (this.takeLock) {
			Thread thread = this.taking;
			if (thread == null) {
				return false;
			}
			this.takeGivenUp = true;
			thread.interrupt();
			return true;
		}
	}

	void kill() {
		this.killed = true;
		this.running = false;
		// a crashed process renews nothing: what it held comes back after its visibility
		// timeout (the killed thread stops its handled messages' heartbeats itself)
		stopCurrentRenewal();
	}

	/**
	 * A message taken out of the queue, in hand.
	 *
	 * @param message the message
	 * @param stage what the consumer thread does with it
	 */
	private record InHand(QueueMessage<Object> message, Stage stage) {

	}

	/**
	 * What the consumer thread does with the message in hand.
	 */
	private enum Stage {

		/** Extends it or starts its heartbeat: its listener has not started. */
		STARTING,

		/** Runs its listener. */
		LISTENING,

		/** Its listener returned: it is about to be pending acknowledgement. */
		HANDLED,

		/** Fails it (its listener failed, or it was delivered too often). */
		FAILING

	}

	/**
	 * What a stop settles of a consumer whose message in hand it took.
	 *
	 * @param id the id of the message it gives back, {@code null} for one being failed
	 * (its failure settles it) or handled (the stop acknowledges it)
	 * @param listening whether its listener ran (else the stop came before it started)
	 * @param sent the give-back and what the consumer had left to settle, under way
	 */
	record GiveBack(@Nullable String id, boolean listening, CompletableFuture<?> sent) {

	}

	private void stopCurrentRenewal() {
		LeaseRenewer.Renewal renewal = this.currentRenewal;
		if (renewal != null) {
			renewal.stop();
		}
	}

}
