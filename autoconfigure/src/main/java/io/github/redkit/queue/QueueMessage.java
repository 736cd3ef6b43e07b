package io.github.redkit.queue;

import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A message taken from a queue: acknowledge it with {@link QueueTemplate#ack} or report
 * its failure with {@link QueueTemplate#fail} before its visibility timeout expires, or
 * extend its visibility with {@link QueueTemplate#extend} while it is handled. It stands
 * for one take of the message: once that take is lost (the visibility timeout expired and
 * the message was taken again), settling or extending it answers that it was lost and
 * never touches the later take.
 *
 * @param <T> the payload type
 */
public final class QueueMessage<T> {

	private final String queue;

	private final Envelope envelope;

	private final String take;

	private final @Nullable T payload;

	QueueMessage(String queue, Envelope envelope, String take, @Nullable T payload) {
		this.queue = queue;
		this.envelope = envelope;
		this.take = take;
		this.payload = payload;
	}

	/**
	 * The queue it was taken from.
	 * @return the queue name
	 */
	public String queue() {
		return this.queue;
	}

	/**
	 * The message's id, unique and stable across redeliveries.
	 * @return the id
	 */
	public String id() {
		return this.envelope.id();
	}

	/**
	 * The headers it was sent with: the sender's trace context, empty for a message sent
	 * without (or before Redkit wrote headers).
	 * @return the headers, never {@code null}
	 */
	public Map<String, String> headers() {
		return this.envelope.headers();
	}

	/**
	 * How many times it has been delivered, this delivery included.
	 * @return 1 for the first delivery
	 */
	public int deliveries() {
		return this.envelope.deliveries();
	}

	/**
	 * When it was first sent (by the sender's clock).
	 * @return the send time
	 */
	public Instant sentAt() {
		return this.envelope.sentAt();
	}

	/**
	 * The payload.
	 * @return the payload read from JSON
	 */
	public @Nullable T payload() {
		return this.payload;
	}

	Envelope envelope() {
		return this.envelope;
	}

	/**
	 * What this take put in the queue's in-flight set: {@code <take token>#<element>}.
	 * @return the in-flight entry, what settling and extending compare
	 */
	String inFlightEntry() {
		return this.take + '#' + this.envelope.raw();
	}

	<P> QueueMessage<P> withPayload(P payload) {
		return new QueueMessage<>(this.queue, this.envelope, this.take, payload);
	}

	@Override
	public String toString() {
		return "QueueMessage[queue=" + this.queue + ", id=" + id() + ", deliveries=" + deliveries() + "]";
	}

}
