package io.github.redkit.queue;

/**
 * The consumer threads of one {@link QueueListener @QueueListener} method on its queue,
 * found in the {@link QueueListenerRegistry}: an application may pause and resume them.
 * Stopping lets the messages in hand finish for up to
 * {@code redkit.queue.shutdown-timeout} and gives the ones still being handled back to
 * the queue.
 */
public interface QueueListenerContainer {

	/**
	 * The queue this container consumes.
	 * @return the queue name
	 */
	String queue();

	/**
	 * Starts the consumer threads; nothing happens when they run.
	 */
	void start();

	/**
	 * Stops taking messages, waits up to the shutdown timeout for the messages being
	 * handled, and gives the ones still being handled back to the queue.
	 */
	void stop();

	/**
	 * Whether consumer threads are running.
	 * @return {@code true} between start and stop
	 */
	boolean isRunning();

}
