package io.github.redkit.queue.internal;

import io.github.redkit.queue.QueueStore;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import org.junit.jupiter.params.ParameterizedClass;

/**
 * {@link QueueListenerContainerTests} on the stream store: delivery, retry, dead letters,
 * redelivery, the heartbeat, prefetch and graceful stop as on the list store.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.BOTH)
class StreamQueueListenerContainerTests extends QueueListenerContainerTests {

	@Override
	QueueStore store() {
		return QueueStore.STREAM;
	}

}
