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
 * never touches the later take. Only Redkit makes them: a template settles only the
 * messages it took.
 *
 * @param <T> the payload type
 */
public interface QueueMessage<T> {

	/**
	 * The queue it was taken from.
	 * @return the queue name
	 */
	String queue();

	/**
	 * The message's id, unique and stable across redeliveries.
	 * @return the id
	 */
	String id();

	/**
	 * The headers it was sent with: the sender's trace context, empty for a message sent
	 * without (or before Redkit wrote headers).
	 * @return the headers, never {@code null}
	 */
	Map<String, String> headers();

	/**
	 * How many times it has been delivered, this delivery included.
	 * @return 1 for the first delivery
	 */
	int deliveries();

	/**
	 * When it was first sent (by the sender's clock).
	 * @return the send time
	 */
	Instant sentAt();

	/**
	 * The payload.
	 * @return the payload read from JSON
	 */
	@Nullable T payload();

}
