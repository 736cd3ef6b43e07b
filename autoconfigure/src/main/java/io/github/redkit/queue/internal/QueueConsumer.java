package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.RedkitOutcomes;
import io.github.redkit.core.internal.LeaseRenewer;
import io.github.redkit.core.internal.RedkitThreads;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueListenerContainer;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueMessageHandler;
import io.github.redkit.queue.QueueReceiver;
import io.github.redkit.queue.QueueSettings;
import io.github.redkit.queue.QueueTemplate;
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
 * thread race for the message in hand: whichever takes it out of hand first settles it,
 * so a message is either given back or acknowledged (or failed), never both; a listener
 * that had not started by then does not start. A stop past {@code shutdown-timeout} that
 * finds the consumer waiting for a take gives the take up ({@link #giveUpTake}: the
 * thread is interrupted in that wait, nowhere else). Whatever it hands its template (to
 * settle, extend or give back) is the message as the template handed it out
 * ({@link ConvertedMessage#taken}).
 */
final class QueueConsumer implements Runnable {

	private static final Log logger = LogFactory.getLog(QueueConsumer.class);

	private static final RedkitOutcomes<Object> HANDLED = RedkitOutcomes.of((message) -> "handled");

	private final String queue;

	private final QueueMessageHandler handler;

	private final QueueTemplate template;

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
	 * The message whose listener is about to run or runs, until the consumer thread (to
	 * settle it) or a stop that timed out (to give it back) takes it out of hand. A stop
	 * that takes it also settles what the consumer handled and prefetched before
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
	 * The stop that settles what this consumer handled and prefetched returned: nothing
	 * more is sent for them (what was not sent comes back after its visibility timeout).
	 */
	private volatile boolean settlingClosed;

	private volatile LeaseRenewer.@Nullable Renewal currentRenewal;

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
	 * A stop past {@code shutdown-timeout} returned, giving back the message whose
	 * listener ran, if any: no listener starts after it.
	 */
	private volatile boolean stopTimedOut;

	/**
	 * A stop past {@code shutdown-timeout} gave up the take this consumer waited for.
	 */
	private volatile boolean takeGivenUp;

	/**
	 * The last take carried {@link #pendingAcks} and was not answered: Redis may have
	 * applied it.
	 */
	private boolean takeUnanswered;

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
		this.template = setup.template();
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
				flushAck();
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
			QueueReceiver.Batch batch = takeBatch(max);
			this.takeUnanswered = false;
			return batch;
		}
		catch (RuntimeException ex) {
			// an error Redis answered applied nothing: its acknowledgements go as new
			this.takeUnanswered = !this.pendingAcks.isEmpty() && RedisQueueTemplate.unanswered(ex);
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

	private QueueReceiver.Batch takeBatch(int max) {
		if (this.prefetch == 1) {
			// one message per round trip, through the single take a receiver may override
			// (never for a prefetching consumer: a take sent again under the name of one
			// not answered hands out that one's whole batch)
			QueueReceiver.Receipt receipt = this.receiver.take(this.queue, this.handler.payloadType(),
					this.pendingAcks.isEmpty() ? null : this.pendingAcks.get(0));
			return (receipt.message() != null) ? new QueueReceiver.Batch(List.of(receipt.message()), null)
					: new QueueReceiver.Batch(List.of(), receipt.readyIn());
		}
		return this.receiver.take(this.queue, this.handler.payloadType(), List.copyOf(this.pendingAcks), max);
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

	private void flushAck() {
		if (!this.killed && !this.pendingAcks.isEmpty() && this.takeGivenUp) {
			// Redis did not answer within shutdown-timeout: sending more would
			// wait as long
			logger.warn("Consumer of queue '" + this.queue + "' stopped while its take waited for Redis; the "
					+ this.pendingAcks.size() + " acknowledgement(s) it carried " + ids(this.pendingAcks)
					+ " are applied if Redis ran it, else those messages come back after their visibility timeout");
		}
		else if (!this.killed && this.takeUnanswered) {
			ackUnderUnansweredTake();
		}
		else if (!this.killed) {
			for (QueueMessage<Object> message : this.pendingAcks) {
				if (this.settlingClosed) {
					logger.warn("Consumer of queue '" + this.queue + "' stopped before it could acknowledge message "
							+ message.id() + "; it comes back after its visibility timeout");
					continue;
				}
				try {
					this.template.ack(ConvertedMessage.taken(message));
				}
				catch (RuntimeException ex) {
					logger.warn("Cannot acknowledge message " + message.id() + " of queue '" + this.queue
							+ "'; it comes back after its visibility timeout", ex);
				}
			}
		}
		acknowledged();
		if (!this.killed && !this.settlingClosed && !this.prefetched.isEmpty()) {
			// taken and not started: back to the queue at once, their deliveries not
			// counted, rather than in flight until their visibility timeout
			List<QueueMessage<Object>> unhandled = new ArrayList<>(this.prefetched);
			this.prefetched.clear();
			giveBack(unhandled);
		}
	}

	/**
	 * Sends the pending acknowledgements that a take not answered carried with one take
	 * of at most one message, under that take's name ({@link RedisQueueTemplate} reuses
	 * it): should Redis have applied the first, it answers what that one acknowledged and
	 * took (its whole batch), so none is reported late, as each acknowledgement sent
	 * alone would be. What the take hands out goes back to the queue at once.
	 */
	private void ackUnderUnansweredTake() {
		List<QueueMessage<Object>> taken;
		try {
			taken = take(1).messages();
		}
		catch (RuntimeException ex) {
			logger.warn("Cannot acknowledge messages " + ids(this.pendingAcks) + " of queue '" + this.queue
					+ "'; they come back after their visibility timeout unless Redis ran the take that carried them",
					ex);
			return;
		}
		giveBack(taken);
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
			this.template.fail(ConvertedMessage.taken(message), new IllegalStateException("Delivered "
					+ message.deliveries() + " times without being acknowledged (visibility timeout expired)"));
			return;
		}
		if (System.nanoTime() - this.prefetchedRenewal >= 0
				&& !this.template.extend(ConvertedMessage.taken(message), this.visibility)) {
			logger.debug("Leaving prefetched message " + message.id() + " of queue '" + this.queue
					+ "': its visibility timeout passed and it was taken again");
			return;
		}
		if (!this.running) {
			// a stop passed this consumer by while the extend waited for Redis (neither
			// in hand nor in a take): no listener starts after the stop returned
			giveBack(List.of(message));
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
			giveBackUnhandled(message, ex);
			return;
		}
		InHand ready = new InHand(message, false);
		this.inHand.set(ready);
		if (this.stopTimedOut) {
			// a stop past shutdown-timeout found no listener running and returned: none
			// may start after it; this message goes back, unless the stop took it first
			// (then the stop settles it and the rest)
			renewal.stop();
			if (this.inHand.compareAndSet(ready, null)) {
				giveBack(List.of(message));
			}
			else {
				this.settledByStop = true;
			}
			return;
		}
		InHand running = new InHand(message, true);
		if (!this.inHand.compareAndSet(ready, running)) {
			// a stop took it before its listener started: it settles it and the rest
			renewal.stop();
			this.settledByStop = true;
			return;
		}
		this.currentRenewal = renewal;
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
		this.currentRenewal = null;
		boolean settles = this.inHand.compareAndSet(running, null);
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
			// kept invisible until the next take sends the acknowledgement
			this.pendingAcks.add(message);
			this.pendingRenewals.add(renewal);
		}
		else {
			renewal.stop();
			logger.debug("Listener of queue '" + this.queue + "' failed on message " + message.id(), failure);
			FailureOutcome outcome = this.template.fail(ConvertedMessage.taken(message), failure);
			if (outcome == FailureOutcome.DEAD_LETTERED || outcome == FailureOutcome.DROPPED) {
				// retries are routine (DEBUG above); giving up on a message is not
				logger.warn("Listener of queue '" + this.queue + "' failed on message " + message.id()
						+ " for the last time; it was "
						+ ((outcome == FailureOutcome.DEAD_LETTERED) ? "dead-lettered" : "dropped") + ": " + failure);
			}
		}
	}

	/**
	 * Gives a message whose heartbeat could not start, and the rest of its batch, back to
	 * the queue untouched (their deliveries not counted). A renewer that rejects work was
	 * shut down (its factory destroyed while this consumer still runs): this consumer
	 * stops, since it could keep no message invisible.
	 */
	private void giveBackUnhandled(QueueMessage<Object> message, RuntimeException cause) {
		List<QueueMessage<Object>> unhandled = new ArrayList<>();
		unhandled.add(message);
		unhandled.addAll(this.prefetched);
		this.prefetched.clear();
		giveBack(unhandled);
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
	 * Gives unhandled messages back to the queue, their deliveries not counted; once one
	 * cannot be (Redis did not answer in time), the others are left in flight too rather
	 * than each waiting as long.
	 */
	private void giveBack(List<QueueMessage<Object>> unhandled) {
		// the last first: each goes back to the head of its end of the list, so the batch
		// keeps its order
		for (int i = unhandled.size() - 1; i >= 0; i--) {
			QueueMessage<Object> back = unhandled.get(i);
			try {
				this.template.release(ConvertedMessage.taken(back));
			}
			catch (RuntimeException ex) {
				logger.warn(
						"Cannot give message " + back.id() + ((i > 0) ? " and " + i + " other(s)" : "")
								+ " back to queue '" + this.queue + "'; they come back after their visibility timeout",
						ex);
				return;
			}
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
	 * Gives the message in hand back to the queue, unless the consumer thread took it out
	 * of hand first (its listener returned: it is being settled), without waiting for
	 * Redis: a stop gives back the messages of all its consumers at once. Taking it, the
	 * stop also settles what the consumer handled and prefetched before
	 * ({@link #settleAtStop}), since the consumer thread may stay in its listener.
	 * @return the give-back under way, or {@code null} when no message was in hand
	 */
	@Nullable GiveBack giveBack() {
		// set first: a listener that has not started by then does not start (handle)
		this.stopTimedOut = true;
		InHand taken = this.inHand.getAndSet(null);
		if (taken == null) {
			return null;
		}
		stopCurrentRenewal();
		CompletableFuture<?> released = this.setup.release(taken.message()).whenComplete((done, ex) -> {
			if (ex != null) {
				logger.warn("Cannot give message " + taken.message().id() + " back to queue '" + this.queue
						+ "'; it comes back after its visibility timeout", ex);
			}
		});
		return new GiveBack(taken.message().id(), taken.listening(), CompletableFuture.allOf(released, settleAtStop()));
	}

	/**
	 * Sends, on a thread of its own, what the consumer thread would have sent at its end:
	 * the acknowledgements of the messages it handled and the give-backs of those it
	 * prefetched. The stop that took the message in hand owns them (the consumer thread,
	 * in or past its listener, no longer touches them) and waits for them as for the
	 * give-back, so that none is sent after it returned, once Redis' connections may be
	 * closed.
	 */
	private CompletableFuture<Void> settleAtStop() {
		if (this.pendingAcks.isEmpty() && this.prefetched.isEmpty()) {
			return CompletableFuture.completedFuture(null);
		}
		return CompletableFuture.runAsync(this::flushAck,
				(task) -> RedkitThreads.newThread("redkit-queue-" + this.queue + "-stop", task, true).start());
	}

	/**
	 * The stop that took the message in hand returned: what it has not sent by then is
	 * not sent.
	 */
	void closeSettling() {
		this.settlingClosed = true;
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
	 * A message taken out of the queue for its listener.
	 *
	 * @param message the message
	 * @param listening whether its listener started
	 */
	private record InHand(QueueMessage<Object> message, boolean listening) {

	}

	/**
	 * A stop's give-back of the message in hand.
	 *
	 * @param id the message's id
	 * @param listening whether its listener ran (else the stop came before it started)
	 * @param sent the give-back and what the consumer had left to settle, under way
	 */
	record GiveBack(String id, boolean listening, CompletableFuture<?> sent) {

	}

	private void stopCurrentRenewal() {
		LeaseRenewer.Renewal renewal = this.currentRenewal;
		if (renewal != null) {
			renewal.stop();
		}
	}

}
