package io.github.redkit.queue;

/**
 * The order in which a queue hands out its ready messages.
 */
public enum QueueOrder {

	/** First in, first out: {@code RPUSH} + {@code LPOP}. */
	FIFO,

	/** Last in, first out: {@code RPUSH} + {@code RPOP}. */
	LIFO

}
