package io.github.redkit.queue;

import java.lang.reflect.Type;

import org.jspecify.annotations.Nullable;

/**
 * Handles the payloads a listener container takes from a queue.
 */
public interface QueueMessageHandler {

	/**
	 * The type payloads are read into.
	 * @return the payload type, possibly generic
	 */
	Type payloadType();

	/**
	 * Handles one payload; returning acknowledges the message.
	 * @param payload the payload
	 * @throws Exception to have the message retried or dead-lettered
	 */
	void handle(@Nullable Object payload) throws Exception;

	/**
	 * Handles one message; returning acknowledges it. By default hands its payload to
	 * {@link #handle(Object)}; a handler that wants the id, the delivery count or the
	 * headers (a stream entry's fields) overrides it.
	 * @param message the message, its payload read into {@link #payloadType()}; the
	 * consumer settles it, the handler must not
	 * @throws Exception to have the message retried or dead-lettered
	 */
	default void handle(QueueMessage<?> message) throws Exception {
		handle(message.payload());
	}

}
