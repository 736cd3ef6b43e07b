package io.github.redkit.queue;

import java.util.List;

import org.springframework.context.Lifecycle;

/**
 * The listener containers of the application's {@link QueueListener @QueueListener}
 * methods, one per method, started and stopped with the application context (stopped
 * before the Redis connection factory, so that messages in hand can be settled).
 */
public interface QueueListenerRegistry extends Lifecycle {

	/**
	 * The containers of every listener found so far.
	 * @return the containers
	 */
	List<QueueListenerContainer> containers();

}
