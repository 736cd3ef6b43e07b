package io.github.redkit.queue;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method that handles the messages of a queue. The method takes one
 * parameter, the payload (read from JSON into its declared, possibly generic, type), or a
 * {@link QueueMessage QueueMessage&lt;T&gt;} for the message itself (its id, delivery
 * count and headers, the payload read into {@code T}), which the container settles.
 * Returning acknowledges the message; throwing retries it with the queue's backoff and
 * dead-letters it after {@code max-attempts} deliveries. A queue that reads a stream
 * another application writes is configured with properties
 * ({@code redkit.queue.queues.<name>.stream-key}, {@code group}, ...), not here.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface QueueListener {

	/**
	 * The queue name; {@code ${...}} placeholders are resolved.
	 * @return the queue name
	 */
	String queue();

	/**
	 * How many messages this method handles at once (consumer threads); a number or a
	 * {@code ${...}} placeholder.
	 * @return the concurrency
	 */
	String concurrency() default "1";

}
