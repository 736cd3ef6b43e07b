package io.github.redkit.queue.internal;

import io.github.redkit.queue.QueueStore;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import org.junit.jupiter.params.ParameterizedClass;

/**
 * {@link QueueTracingTests} on the stream store: the trace context travels in the entry's
 * element as it does in a list's.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
class StreamQueueTracingTests extends QueueTracingTests {

	@Override
	QueueStore store() {
		return QueueStore.STREAM;
	}

}
