package io.github.redkit.queue;

/**
 * The Redis structure a queue keeps its messages in.
 */
public enum QueueStore {

	/**
	 * Lists and sorted sets driven by Lua scripts: FIFO or LIFO, delayed and collapsing
	 * sends, backoff of any length. The default.
	 */
	LIST,

	/**
	 * A stream read by a consumer group (Redis 6.2 or later): FIFO only, no delayed or
	 * collapsing sends, a backoff no longer than the visibility timeout.
	 */
	STREAM

}
