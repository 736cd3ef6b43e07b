package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.RedkitOutcomes;
import io.github.redkit.core.internal.LeaseRenewer;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueListenerContainer;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueMessageHandler;
import io.github.redkit.queue.QueueReceiver;
import io.github.redkit.queue.QueueSettings;
import io.github.redkit.queue.RedkitQueueHandleContext;
import io.github.redkit.queue.internal.MessageInHand.Stage;
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
 * returned ({@link ConsumerCalls#closeSettling}), no take after it began
 * ({@link ConsumerCalls#take}). A stop past {@code shutdown-timeout} that finds the
 * consumer waiting for a take gives the take up ({@link #giveUpTake}: the thread is
 * interrupted in that wait, nowhere else). Whatever it hands its template (to settle,
 * extend or give back) is the message as the template handed it out
 * ({@link ConvertedMessage#taken}).
 */
final class QueueConsumer implements Runnable {

	private static final Log logger = LogFactory.getLog(QueueConsumer.class);

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

	private final ConsumerSetup setup;

	/**
	 * The calls it sends besides its takes, closed by the stop.
	 */
	private final ConsumerCalls calls;

	/**
	 * What it prefetched and handled, not yet settled.
	 */
	private final HeldMessages held;

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
	private final AtomicReference<@Nullable MessageInHand> inHand = new AtomicReference<>();

	/**
	 * A stop took the message in hand, and with it the settling of what the consumer
	 * {@link #held}: the consumer thread no longer touches it. Read and written by the
	 * consumer thread only.
	 */
	private boolean settledByStop;

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
	 * A stop past {@code shutdown-timeout} gave up the take this consumer waited for.
	 */
	private volatile boolean takeGivenUp;

	/**
	 * The last take sent nothing, not even the acknowledgements it was to carry: it was
	 * refused, the stop having begun before its claim started
	 * ({@link ConsumerCalls#take}), or it was Redkit's and ended with an exception before
	 * any claim of it started. Written by the consumer thread, read by whichever thread
	 * settles what the consumer held (the consumer thread at its end, or a stop that took
	 * its message in hand, {@link #settleAtStop}): volatile.
	 */
	private volatile boolean takeSentNothing;

	/**
	 * The consumer takes through Redkit's template, whose claims start through
	 * {@link ConsumerCalls#startTake}: only then does a take that started no claim say
	 * that nothing was sent.
	 */
	private final boolean ownTemplate;

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
		this.setup = setup;
		this.calls = new ConsumerCalls(queue);
		this.ownTemplate = setup.template() instanceof RedisQueueTemplate;
		this.held = new HeldMessages(queue, setup, this.calls, this.visibility.toNanos());
	}

	@Override
	public void run() {
		try {
			while (this.running) {
				try {
					QueueMessage<Object> next = this.held.nextPrefetched();
					if (next != null) {
						handle(next);
						continue;
					}
					long sentAt = System.nanoTime();
					QueueReceiver.Batch batch = take(this.prefetch);
					if (batch == null) {
						// the stop began: nothing was sent; its end settles what
						// this take would have acknowledged
						break;
					}
					this.held.acknowledged();
					if (!batch.messages().isEmpty()) {
						this.held.prefetched(batch.messages(), sentAt);
					}
					else if (this.running && !Duration.ZERO.equals(batch.readyIn())) {
						await(batch.readyIn());
					}
				}
				catch (Exception ex) {
					// a checked exception too, which a template's or a listener's code
					// may
					// let through unchecked: the consumer goes on rather than dying
					if (this.running) {
						logger.warn("Consumer of queue '" + this.queue + "' failed; retrying", ex);
						pause();
					}
				}
			}
		}
		finally {
			if (!this.settledByStop) {
				this.calls.awaitSettling(this::flushAck);
			}
			this.wait.close();
		}
	}

	/**
	 * Takes up to {@code max} messages, acknowledging the pending ones, unless the stop
	 * began ({@link ConsumerCalls#take}: marked as taking first, so that a stop that
	 * comes after the check finds the take and may give it up); a stop past
	 * {@code shutdown-timeout} may interrupt the wait; a take not answered leaves them
	 * pending, carried by it.
	 * @return what it took, or {@code null} when the stop began before it started
	 */
	private QueueReceiver.@Nullable Batch take(int max) {
		synchronized (this.takeLock) {
			this.taking = Thread.currentThread();
		}
		try {
			QueueReceiver.Batch batch = this.calls.take(() -> takeBatch(max, this.held.pendingAcks()));
			if (batch != null) {
				this.held.taken(false);
			}
			this.takeSentNothing = batch == null;
			return batch;
		}
		catch (Throwable ex) {
			// Whatever it throws (a checked exception let through unchecked, an error),
			// the end reads this take's state. Redkit's template sends the
			// acknowledgements with a take's first claim: a take of it that failed
			// before any claim started (a step of a subclass's own, interrupted by a
			// stop that gave it up) sent nothing, and the end sends them on their own
			// (not in a take under its name, which would run that step again with nobody
			// to interrupt it), unless an earlier take that failed carried them: they
			// still go under that take's name, so that what it may have applied is not
			// reported late. An application's template may have sent its take before it
			// failed. Any other failed take is one for the end, which sends them under
			// its name: a subclass may fail its take for an error answer of its own
			this.takeSentNothing = this.ownTemplate && !this.calls.claimStarted();
			if (!(this.takeSentNothing && this.takeGivenUp)) {
				this.held.taken(true);
			}
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
	 * Settles what the consumer handled and prefetched ({@link HeldMessages#flush}): a
	 * take that failed carrying acknowledgements is sent again under its name.
	 * @return the calls under way
	 */
	private CompletableFuture<?> flushAck() {
		return this.held.flush(this.killed, givenUpTake(), (acks) -> takeBatch(1, acks));
	}

	/**
	 * What the take a stop gave up may have sent.
	 * @return {@code null} when no take was given up or the one given up sent nothing
	 * (its acknowledgements go now)
	 */
	private HeldMessages.@Nullable GivenUpTake givenUpTake() {
		if (!this.takeGivenUp || this.takeSentNothing) {
			return null;
		}
		return this.ownTemplate ? HeldMessages.GivenUpTake.SENT : HeldMessages.GivenUpTake.MAYBE_SENT;
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
		MessageInHand starting = new MessageInHand(message, Stage.STARTING);
		this.inHand.set(starting);
		if (this.held.renewalDue()) {
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
		MessageInHand running = new MessageInHand(message, Stage.LISTENING);
		if (!this.running || !this.inHand.compareAndSet(starting, running)) {
			// a stop began: no listener starts after it; this message goes back with the
			// rest of its batch in the consumer's one settle at its end, beside the
			// acknowledgements of what it handled (two settles would leave a gap between
			// them for the stop to close in), unless the stop took it first (then the
			// stop settles it and the rest)
			this.currentRenewal = null;
			renewal.stop();
			if (outOfHand(starting)) {
				this.held.putBack(message);
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
		MessageInHand settling = new MessageInHand(message, (failure != null) ? Stage.FAILING : Stage.HANDLED);
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
			this.held.handled(message, renewal);
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
		return this.calls.sendAndWait(() -> this.setup.extendNow(message, this.visibility));
	}

	/**
	 * Fails a message the consumer holds in hand meanwhile: a stop then settles the rest
	 * (not this message, which the failure settles).
	 */
	private void fail(QueueMessage<Object> message, Throwable failure) {
		MessageInHand failing = new MessageInHand(message, Stage.FAILING);
		this.inHand.set(failing);
		failInHand(failing, failure);
	}

	private void failInHand(MessageInHand failing, Throwable failure) {
		QueueMessage<Object> message = failing.message();
		FailureOutcome outcome;
		try {
			outcome = this.calls.sendAndWait(() -> this.setup.fail(message, failure));
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
	private boolean outOfHand(MessageInHand expected) {
		if (this.inHand.compareAndSet(expected, null)) {
			return true;
		}
		this.settledByStop = true;
		return false;
	}

	/**
	 * Gives a message whose heartbeat could not start, and the rest of its batch, back to
	 * the queue untouched (their deliveries not counted). A renewer that rejects work was
	 * shut down (its factory destroyed while this consumer still runs): this consumer
	 * stops, since it could keep no message invisible, and they go back in its one settle
	 * at its end, beside the acknowledgements of what it handled.
	 */
	private void giveBackUnhandled(QueueMessage<Object> message, RuntimeException cause) {
		if (cause instanceof RejectedExecutionException) {
			this.held.putBack(message);
			this.running = false;
			logger.warn("Consumer of queue '" + this.queue + "' stops: its visibility renewer was shut down"
					+ " (its container factory destroyed while it still ran); " + this.held.prefetchedCount()
					+ " unhandled message(s) go back to the queue");
			return;
		}
		// at once, in a settle of its own, and the consumer goes on taking: not a second
		// settle beside its end's, as nothing is pending then. The renewer refuses work
		// with a RejectedExecutionException only; any other failure to start a heartbeat
		// comes of the consumer's own settings (a visibility timeout past a long's
		// nanoseconds), so it fails the first message of a batch as it would every other
		// and none was handled before it: no acknowledgement is pending (a take that
		// answered sent them), and the end has nothing left to settle after this one
		List<QueueMessage<Object>> unhandled = this.held.withPrefetched(message);
		this.calls.awaitSettling(() -> this.held.giveBack(unhandled));
		throw cause;
	}

	/**
	 * What the consumer thread settles on its own, under way
	 * ({@link ConsumerCalls#settling()}).
	 * @return the settling under way, or done when there is none
	 */
	CompletableFuture<?> settling() {
		return this.calls.settling();
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

	/**
	 * Stops the consumer: no take of its starts from now on (it was told to stop first,
	 * so that a take refused finds it stopping).
	 */
	void stop() {
		this.running = false;
		this.calls.stopTakes();
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
		MessageInHand taken = this.inHand.getAndSet(null);
		if (taken == null) {
			return null;
		}
		stopCurrentRenewal();
		if (taken.stage() == Stage.FAILING) {
			return new GiveBack(null, false, settleAtStop());
		}
		if (taken.stage() == Stage.HANDLED) {
			// its listener returned: acknowledged, not given back
			return new GiveBack(null, false,
					CompletableFuture.allOf(
							this.calls.send(() -> this.setup.ack(taken.message()), taken.message(), "acknowledge"),
							settleAtStop()));
		}
		// given back in the chain of the prefetched ones, last, so that the batch keeps
		// its order at the head of the queue
		List<QueueMessage<Object>> unhandled = this.held.withPrefetched(taken.message());
		return new GiveBack(taken.message().id(), taken.stage() == Stage.LISTENING,
				CompletableFuture.allOf(this.held.giveBack(unhandled), settleAtStop()));
	}

	/**
	 * Sends, side by side, what the consumer thread would have sent at its end: the
	 * acknowledgements of the messages it handled and the give-backs of those it
	 * prefetched. The stop that took the message in hand owns them (the consumer thread,
	 * in or past its listener, no longer touches them) and waits for them as for the
	 * give-back; none starts after it returned, once Redis' connections may be closed.
	 */
	private CompletableFuture<?> settleAtStop() {
		if (this.held.isEmpty()) {
			return CompletableFuture.completedFuture(null);
		}
		return flushAck();
	}

	/**
	 * The stop returns: no call of this consumer's starts after it, once what it settles
	 * on its own is answered ({@link ConsumerCalls#closeSettling(long)}).
	 * @param lastAnswer until when ({@link System#nanoTime()}) the stop waits for Redis
	 */
	void closeSettling(long lastAnswer) {
		this.calls.closeSettling(lastAnswer);
	}

	/**
	 * Gives up the take the consumer thread waits for, interrupting it there; nothing
	 * else of the consumer's is interrupted. The stop then waits for what the consumer
	 * settles at its end ({@link ConsumerCalls#awaitEndSettle}), within its bound: the
	 * acknowledgements of a take refused before its claim started, which sent nothing.
	 * @return whether it waited for a take
	 */
	boolean giveUpTake() {
		synchronized (this.takeLock) {
			Thread thread = this.taking;
			if (thread == null) {
				return false;
			}
			this.takeGivenUp = true;
			// before the interrupt, which lets the consumer reach its end
			this.calls.awaitEndSettle();
			thread.interrupt();
			return true;
		}
	}

	void kill() {
		this.killed = true;
		this.running = false;
		this.calls.stopTakes();
		// a crashed process renews nothing: what it held comes back after its visibility
		// timeout (the killed thread stops its handled messages' heartbeats itself)
		stopCurrentRenewal();
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
