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

}
