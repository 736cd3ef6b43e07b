package io.github.redkit.queue.internal;

import java.time.Instant;
import java.util.Map;

import io.github.redkit.queue.QueueMessage;
import org.jspecify.annotations.Nullable;

/**
 * The one kind of {@link QueueMessage} there is: one take of an element of a queue's
 * ready list, made by the template's take script and nothing else.
 *
 * @param <T> the payload type
 */
public final class TakenMessage<T> implements QueueMessage<T> {

	private final String queue;

	private final Envelope envelope;

	private final String take;

	private final @Nullable T payload;

	/**
	 * How long Redis had held this take when it handed it over: 0 for a take it made
	 * then; for a take sent again after one not answered, which hands over what the first
	 * one delivered, how long ago that was (its visibility timeout runs from then).
	 */
	private final long heldMillis;

	/**
	 * Whether a call of its holder found its stream entry deleted by a writer (a trim)
	 * while it was held, reported and acknowledged then: its later acknowledgement is no
	 * late one.
	 */
	private volatile boolean trimmed;

	/**
	 * The name of a take not answered that carried its acknowledgement (and may have
	 * applied it): a take sending it again goes under that name, whose record answers.
	 */
	private volatile @Nullable String carriedBy;

	TakenMessage(String queue, Envelope envelope, String take, @Nullable T payload) {
		this(queue, envelope, take, payload, 0);
	}

	TakenMessage(String queue, Envelope envelope, String take, @Nullable T payload, long heldMillis) {
		this.queue = queue;
		this.envelope = envelope;
		this.take = take;
		this.payload = payload;
		this.heldMillis = heldMillis;
	}

	/**
	 * The take behind a message handed back to a template.
	 * @param message a message a template took
	 * @return it as the take it is
	 * @throws IllegalArgumentException when Redkit did not take it
	 */
	public static TakenMessage<?> of(QueueMessage<?> message) {
		if (message instanceof TakenMessage<?> taken) {
			return taken;
		}
		throw new IllegalArgumentException(
				"message must be one a Redkit queue template took, not a " + message.getClass().getName());
	}

	@Override
	public String queue() {
		return this.queue;
	}

	@Override
	public String id() {
		return this.envelope.id();
	}

	@Override
	public Map<String, String> headers() {
		return this.envelope.headers();
	}

	@Override
	public int deliveries() {
		return this.envelope.deliveries();
	}

	@Override
	public Instant sentAt() {
		return this.envelope.sentAt();
	}

	@Override
	public @Nullable T payload() {
		return this.payload;
	}

	Envelope envelope() {
		return this.envelope;
	}

	/**
	 * The take's token: chosen per take for a list queue, the entry id for a stream queue
	 * (whose take is that id and the delivery count).
	 * @return the token
	 */
	String take() {
		return this.take;
	}

	/**
	 * What this take put in the queue's in-flight set: {@code <take token>#<element>}.
	 * @return the in-flight entry, what settling and extending compare
	 */
	public String inFlightEntry() {
		return this.take + '#' + this.envelope.raw();
	}

	/**
	 * How long Redis had held this take when it handed it over (a take sent again hands
	 * over what the first one delivered).
	 * @return the milliseconds, 0 for a take made when it was handed over
	 */
	long heldMillis() {
		return this.heldMillis;
	}

	/**
	 * Records that its stream entry was found deleted while held.
	 */
	void markTrimmed() {
		this.trimmed = true;
	}

	/**
	 * Whether its stream entry was found deleted while held (by an extend, a release or a
	 * retry of it).
	 * @return whether it was
	 */
	boolean trimmed() {
		return this.trimmed;
	}

	/**
	 * Records that a take not answered carried its acknowledgement.
	 * @param take the take's name
	 */
	void carriedBy(String take) {
		this.carriedBy = take;
	}

	/**
	 * The take not answered that last carried its acknowledgement.
	 * @return the take's name, or {@code null}
	 */
	@Nullable String carriedBy() {
		return this.carriedBy;
	}

	<P> TakenMessage<P> withPayload(@Nullable P payload) {
		return new TakenMessage<>(this.queue, this.envelope, this.take, payload, this.heldMillis);
	}

	@Override
	public String toString() {
		return "QueueMessage[queue=" + this.queue + ", id=" + id() + ", deliveries=" + deliveries() + "]";
	}

}
