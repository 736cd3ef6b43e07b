package io.github.redkit.queue;

import java.time.Duration;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The {@link QueueTemplate}'s reactive face: sends on subscription, and a consumer that
 * takes from Redis only as many messages as its subscriber requested. Every taken message
 * is in flight until the subscriber settles it ({@link #ack}, {@link #fail},
 * {@link #deadLetter} or {@link #release}); one it never settles is delivered again after
 * the queue's visibility timeout, as with the blocking receiver, unless its subscriber
 * extends it ({@link #extend}).
 */
public interface ReactiveQueueTemplate {

	/**
	 * Appends a message.
	 * @param queue the queue name
	 * @param payload the payload, written as JSON
	 * @return completes once Redis has it
	 */
	Mono<Void> send(String queue, Object payload);

	/**
	 * Schedules a message that becomes ready after a delay, applying the queue's collapse
	 * policy (see {@link QueueTemplate#sendDelayed}).
	 * @param queue the queue name
	 * @param payload the payload, written as JSON
	 * @param delay the delay
	 * @return {@code false} when it collapsed with a pending equal payload
	 */
	Mono<Boolean> sendDelayed(String queue, Object payload, Duration delay);

	/**
	 * Takes messages as the subscriber requests them: each take asks Redis for at most
	 * the outstanding demand (capped per round trip), and an empty queue is polled again
	 * on a timer with a bounded backoff, never by blocking a thread. Cancelling stops the
	 * takes; messages taken but not yet emitted are given back at once. A failure to
	 * reach Redis ends the flux with its {@code DataAccessException} (resubscribe, e.g.
	 * with {@code retryWhen}, to keep consuming).
	 * @param <T> the payload type
	 * @param queue the queue name
	 * @param type the payload type
	 * @return the messages, each in flight until settled
	 */
	<T> Flux<QueueMessage<T>> receive(String queue, Class<T> type);

	/**
	 * Acknowledges a message: it is done and leaves the queue.
	 * @param message the message
	 * @return {@code false} when its visibility timeout had expired and it was taken
	 * again (a late ack, counted and logged as {@link QueueTemplate#ack} does)
	 */
	Mono<Boolean> ack(QueueMessage<?> message);

	/**
	 * Extends the visibility of a message still in hand (see
	 * {@link QueueTemplate#extend}).
	 * @param message the message
	 * @param visibility how long it stays invisible from now
	 * @return {@code false} when it was lost: its visibility timeout had expired and it
	 * was taken again, or it was settled already
	 */
	Mono<Boolean> extend(QueueMessage<?> message, Duration visibility);

	/**
	 * Reports that a message could not be handled (a nack): it is retried after the
	 * queue's backoff, or dead-lettered after {@code max-attempts} deliveries.
	 * @param message the message
	 * @param error why
	 * @return what happened to it
	 */
	Mono<FailureOutcome> fail(QueueMessage<?> message, Throwable error);

	/**
	 * Dead-letters a message at once (or drops it, for a queue without dead letters),
	 * whatever its delivery count.
	 * @param message the message
	 * @param error why
	 * @return what happened to it
	 */
	Mono<FailureOutcome> deadLetter(QueueMessage<?> message, Throwable error);

	/**
	 * Gives a message back to the queue at once, without counting the delivery.
	 * @param message the message
	 * @return {@code false} when it was not in flight any more
	 */
	Mono<Boolean> release(QueueMessage<?> message);

}
