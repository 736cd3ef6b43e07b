package io.github.redkit.queue;

import java.time.Duration;

import io.github.redkit.core.RedkitObservation;
import io.github.redkit.core.RedkitObservations;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One consumer thread of a {@link QueueListenerContainer}: take, handle, settle; on an
 * empty queue it waits on the ready list ({@link ReadyListWait}), not by sleep polling.
 */
final class QueueConsumer implements Runnable {

	private static final Log logger = LogFactory.getLog(QueueConsumer.class);

	private final String queue;

	private final QueueMessageHandler handler;

	private final QueueTemplate template;

	private final QueueReceiver receiver;

	private final QueueSettings settings;

	private final QueueEvents events;

	private final ReadyListWait wait;

	private final RedkitObservations observations;

	private final long pollMillis;

	private volatile boolean running = true;

	private volatile boolean killed;

	private volatile @Nullable QueueMessage<Object> current;

	/**
	 * Handled and not yet acknowledged: the next take acknowledges it (one round trip).
	 */
	private @Nullable QueueMessage<Object> pendingAck;

	QueueConsumer(String queue, QueueMessageHandler handler, ConsumerSetup setup) {
		this.queue = queue;
		this.handler = handler;
		this.template = setup.template();
		this.receiver = setup.receiver();
		this.settings = setup.settings().apply(queue);
		this.events = setup.events();
		this.wait = setup.readyListWait(queue, this.settings.order());
		this.observations = setup.observations();
		this.pollMillis = Math.max(10, setup.pollTimeout().toMillis());
	}

	@Override
	public void run() {
		try {
			while (this.running) {
				try {
					QueueReceiver.Receipt receipt = this.receiver.take(this.queue, this.handler.payloadType(),
							this.pendingAck);
					this.pendingAck = null;
					if (receipt.message() != null) {
						handle(receipt.message());
					}
					else if (this.running && !Duration.ZERO.equals(receipt.readyIn())) {
						await(receipt.readyIn());
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
			flushAck();
			this.wait.close();
		}
	}

	private void flushAck() {
		if (this.pendingAck != null && !this.killed) {
			try {
				this.template.ack(this.pendingAck);
			}
			catch (RuntimeException ex) {
				logger.warn("Cannot acknowledge message " + this.pendingAck.id() + " of queue '" + this.queue
						+ "'; it comes back after its visibility timeout", ex);
			}
		}
		this.pendingAck = null;
	}

	private void handle(QueueMessage<Object> message) {
		if (!this.settings.allowsDelivery(message.deliveries())) {
			// it outlived its visibility timeout too often (a consumer died with it each
			// time)
			this.template.fail(message, new IllegalStateException("Delivered " + message.deliveries()
					+ " times without being acknowledged (visibility timeout expired)"));
			return;
		}
		this.current = message;
		long start = System.nanoTime();
		Throwable failure = null;
		// in scope while the listener runs: its own spans continue the sender's trace
		try (RedkitObservation observation = this.observations.startHandle(this.queue, message.headers())) {
			try {
				this.handler.handle(message.payload());
				observation.outcome("handled");
			}
			catch (Throwable ex) {
				failure = ex;
				observation.outcome("failed");
				observation.error(ex);
			}
		}
		if (this.killed || this.current == null) {
			return; // killed, or given back by a stop that timed out
		}
		this.events.handled(this.queue, Duration.ofNanos(System.nanoTime() - start), failure == null);
		if (failure == null) {
			this.pendingAck = message;
		}
		else {
			logger.debug("Listener of queue '" + this.queue + "' failed on message " + message.id(), failure);
			FailureOutcome outcome = this.template.fail(message, failure);
			if (outcome == FailureOutcome.DEAD_LETTERED || outcome == FailureOutcome.DROPPED) {
				// retries are routine (DEBUG above); giving up on a message is not
				logger.warn("Listener of queue '" + this.queue + "' failed on message " + message.id()
						+ " for the last time; it was "
						+ ((outcome == FailureOutcome.DEAD_LETTERED) ? "dead-lettered" : "dropped") + ": " + failure);
			}
		}
		this.current = null;
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

	void giveBack() {
		QueueMessage<Object> message = this.current;
		this.current = null;
		if (message != null) {
			try {
				this.template.release(message);
			}
			catch (RuntimeException ex) {
				logger.warn("Cannot give message " + message.id() + " back to queue '" + this.queue
						+ "'; it comes back after its visibility timeout", ex);
			}
		}
	}

	void kill() {
		this.killed = true;
		this.running = false;
	}

}
