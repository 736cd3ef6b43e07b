package io.github.redkit.queue;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisListCommands.Direction;

/**
 * One consumer thread of a {@link QueueListenerContainer}: claim, handle, settle; on an
 * empty queue it blocks on {@code BLMOVE ready ready <side> <side>}, which moves the head
 * onto itself and so changes nothing but wakes up as soon as a message arrives.
 */
final class QueueConsumer implements Runnable {

	private static final long MIN_BLOCK_MILLIS = 10;

	private static final Log logger = LogFactory.getLog(QueueConsumer.class);

	private final String queue;

	private final QueueMessageHandler handler;

	private final RedisQueueTemplate template;

	private final RedisConnectionFactory connectionFactory;

	private final long pollMillis;

	private volatile boolean running = true;

	private volatile boolean killed;

	private volatile QueueMessage<Object> current;

	private RedisConnection blockingConnection;

	/**
	 * Handled and not yet acknowledged: the next claim acknowledges it (one round trip).
	 */
	private QueueMessage<Object> pendingAck;

	QueueConsumer(String queue, QueueMessageHandler handler, RedisQueueTemplate template,
			RedisConnectionFactory connectionFactory, Duration pollTimeout) {
		this.queue = queue;
		this.handler = handler;
		this.template = template;
		this.connectionFactory = connectionFactory;
		this.pollMillis = Math.max(10, pollTimeout.toMillis());
	}

	@Override
	public void run() {
		try {
			while (this.running) {
				try {
					RedisQueueTemplate.Claim claim = this.template.claim(this.queue, this.pendingAck);
					this.pendingAck = null;
					if (claim.envelope() != null) {
						handle(claim.envelope());
					}
					else if (this.running) {
						await(claim.waitMillis());
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
			closeConnection();
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

	private void handle(Envelope envelope) {
		QueueMessage<Object> message;
		try {
			message = this.template.read(this.queue, envelope, this.handler.payloadType());
		}
		catch (RuntimeException ex) {
			this.template.failUnreadable(this.queue, envelope, ex);
			return;
		}
		if (message.deliveries() > this.template.settings(this.queue).maxAttempts()) {
			// it outlived its visibility timeout too often (a consumer died with it each
			// time)
			this.template.fail(message, new IllegalStateException("Delivered " + message.deliveries()
					+ " times without being acknowledged (visibility timeout expired)"));
			return;
		}
		this.current = message;
		long start = System.nanoTime();
		Throwable failure = null;
		try {
			this.handler.handle(message.payload());
		}
		catch (Throwable ex) {
			failure = ex;
		}
		if (this.killed || this.current == null) {
			return; // killed, or given back by a stop that timed out
		}
		this.template.observer().handled(this.queue, Duration.ofNanos(System.nanoTime() - start), failure == null);
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

	private void await(long hintMillis) {
		// at least 10 ms: Redis 6.2 reads a timeout of 0.001 s as 0, which blocks forever
		long millis = Math.max(MIN_BLOCK_MILLIS,
				(hintMillis >= 0) ? Math.min(this.pollMillis, hintMillis) : this.pollMillis);
		if (this.blockingConnection == null) {
			this.blockingConnection = this.connectionFactory.getConnection();
		}
		byte[] ready = this.template.readyKeyBytes(this.queue);
		Direction side = (this.template.settings(this.queue).order() == QueueOrder.LIFO) ? Direction.RIGHT
				: Direction.LEFT;
		this.blockingConnection.listCommands().bLMove(ready, ready, side, side, millis / 1000.0);
	}

	private void pause() {
		closeConnection();
		try {
			Thread.sleep(this.pollMillis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.running = false;
		}
	}

	private void closeConnection() {
		if (this.blockingConnection != null) {
			try {
				this.blockingConnection.close();
			}
			catch (RuntimeException ex) {
				logger.debug("Cannot close the blocking connection of queue '" + this.queue + "'", ex);
			}
			this.blockingConnection = null;
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
