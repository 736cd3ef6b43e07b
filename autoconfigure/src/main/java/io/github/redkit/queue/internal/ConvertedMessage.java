package io.github.redkit.queue.internal;

import java.time.Instant;
import java.util.Map;

import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueTemplate;
import org.jspecify.annotations.Nullable;

/**
 * A message an application's own {@link QueueTemplate} took, of whatever kind it makes,
 * with its payload converted to the listener's type. The consumer hands the template back
 * the message it took ({@link #taken(QueueMessage)}), never this view.
 *
 * @param <T> the payload type
 * @param taken the message as the template handed it out
 * @param payload the payload converted to the listener's type
 */
record ConvertedMessage<T>(QueueMessage<?> taken, @Nullable T payload) implements QueueMessage<T> {

	/**
	 * The message as its template handed it out.
	 * @param message a message a consumer took
	 * @return the message to settle with the template
	 */
	static QueueMessage<?> taken(QueueMessage<?> message) {
		return (message instanceof ConvertedMessage<?> converted) ? converted.taken() : message;
	}

	@Override
	public String queue() {
		return this.taken.queue();
	}

	@Override
	public String id() {
		return this.taken.id();
	}

	@Override
	public Map<String, String> headers() {
		return this.taken.headers();
	}

	@Override
	public int deliveries() {
		return this.taken.deliveries();
	}

	@Override
	public Instant sentAt() {
		return this.taken.sentAt();
	}

}
