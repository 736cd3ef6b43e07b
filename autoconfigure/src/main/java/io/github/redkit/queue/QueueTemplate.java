package io.github.redkit.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Sends messages to Redis queues and, for code that polls instead of using
 * {@link QueueListener @QueueListener}, takes them with at-least-once delivery: a taken
 * message is in flight until it is acknowledged, failed (retried with backoff, then
 * dead-lettered) or its visibility timeout expires (then it is delivered again); work
 * longer than the timeout extends it ({@link #extend}). Payloads are stored as JSON.
 */
public interface QueueTemplate {

	/**
	 * Appends a message (one {@code RPUSH}).
	 * @param queue the queue name
	 * @param payload the payload, written as JSON
	 */
	void send(String queue, Object payload);

	/**
	 * Appends many messages in order, pipelined.
	 * @param queue the queue name
	 * @param payloads the payloads, written as JSON
	 */
	void sendAll(String queue, Collection<?> payloads);

	/**
	 * Schedules a message that becomes ready after a delay measured on the Redis clock,
	 * applying the queue's collapse policy to an equal payload still waiting.
	 * @param queue the queue name
	 * @param payload the payload, written as JSON
	 * @param delay the delay
	 * @return {@code false} when it collapsed with a pending equal payload
	 */
	boolean sendDelayed(String queue, Object payload, Duration delay);

	/**
	 * The number of ready messages (neither delayed nor in flight).
	 * @param queue the queue name
	 * @return the ready count
	 */
	long size(String queue);

	/**
	 * Counts of every state of a queue and the age of its oldest ready message.
	 * @param queue the queue name
	 * @return the statistics
	 */
	QueueStats stats(String queue);

	/**
	 * Takes one ready message without waiting, if there is one.
	 * @param <T> the payload type
	 * @param queue the queue name
	 * @param type the payload type
	 * @return the message, in flight until acknowledged or failed
	 */
	<T> Optional<QueueMessage<T>> receive(String queue, Class<T> type);

	/**
	 * Acknowledges a message and takes the next one of the same queue, in one round trip.
	 * @param <T> the payload type
	 * @param done the message to acknowledge
	 * @param type the payload type of the next message
	 * @return the next message, if there is one
	 */
	<T> Optional<QueueMessage<T>> ackAndReceive(QueueMessage<?> done, Class<T> type);

	/**
	 * Takes up to {@code max} ready messages without waiting; Redkit's template takes
	 * them in one round trip. Each is in flight on its own: acknowledged, failed or
	 * expired one by one, its visibility timeout counted from this take.
	 * @param <T> the payload type
	 * @param queue the queue name
	 * @param type the payload type
	 * @param max how many at most, at least 1
	 * @return the messages, oldest first for a FIFO queue; empty when none is ready
	 */
	default <T> List<QueueMessage<T>> receive(String queue, Class<T> type, int max) {
		List<QueueMessage<T>> taken = new ArrayList<>();
		while (taken.size() < max) {
			Optional<QueueMessage<T>> message = receive(queue, type);
			if (message.isEmpty()) {
				break;
			}
			taken.add(message.get());
		}
		return taken;
	}

	/**
	 * Acknowledges handled messages of a queue and takes up to {@code max} ready ones;
	 * Redkit's template does both in one round trip.
	 * @param <T> the payload type
	 * @param done messages of this queue to acknowledge, possibly none
	 * @param queue the queue name
	 * @param type the payload type of the next messages
	 * @param max how many to take at most, at least 1
	 * @return the messages taken, in flight until settled one by one
	 */
	default <T> List<QueueMessage<T>> ackAndReceive(Collection<? extends QueueMessage<?>> done, String queue,
			Class<T> type, int max) {
		done.forEach(this::ack);
		return receive(queue, type, max);
	}

	/**
	 * Acknowledges a message: it is done and leaves the queue. An ack that comes after
	 * the message's visibility timeout expired and it was taken again is a late ack: it
	 * leaves the later take alone, answers {@code false}, and is counted
	 * ({@code redkit.queue.messages}, {@code outcome=late-ack}) and logged.
	 * @param message the message
	 * @return {@code false} when its visibility timeout had expired and it was taken
	 * again (it is, or will be, delivered again), or it was settled already (counted as a
	 * late ack too)
	 */
	boolean ack(QueueMessage<?> message);

	/**
	 * Extends the visibility of a message still in hand: it stays invisible for
	 * {@code visibility} from now (on the Redis clock) instead of its current deadline.
	 * One compare-and-extend on this take of the message: call it well within the
	 * visibility, as a lock lease is renewed ({@link QueueListener @QueueListener}
	 * consumers do it by themselves every third of the visibility timeout).
	 * @param message the message
	 * @param visibility how long it stays invisible from now
	 * @return {@code false} when it was lost: its visibility timeout had expired and it
	 * was taken again, or it was settled already
	 */
	boolean extend(QueueMessage<?> message, Duration visibility);

	/**
	 * Reports that a message could not be handled: it is retried after the queue's
	 * backoff, or dead-lettered with this error after {@code max-attempts} deliveries.
	 * @param message the message
	 * @param error why
	 * @return what happened to it
	 */
	FailureOutcome fail(QueueMessage<?> message, Throwable error);

	/**
	 * Gives a message back to the queue at once, without counting the delivery.
	 * @param message the message
	 * @return {@code false} when it was not in flight any more
	 */
	boolean release(QueueMessage<?> message);

	/**
	 * The oldest dead letters of a queue.
	 * @param queue the queue name
	 * @param limit how many at most
	 * @return dead letters, oldest first
	 */
	List<DeadLetter> deadLetters(String queue, int limit);

	/**
	 * Moves one dead letter back to the queue with a fresh delivery count.
	 * @param queue the queue name
	 * @param id the message id
	 * @return {@code false} when there is no such dead letter
	 */
	boolean requeueDeadLetter(String queue, String id);

	/**
	 * Moves every dead letter back to the queue with a fresh delivery count.
	 * @param queue the queue name
	 * @return how many were re-queued
	 */
	long requeueDeadLetters(String queue);

}
