package io.github.redkit.queue.internal;

import io.github.redkit.queue.QueueStore;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedClass;

/**
 * {@link ReactiveQueueTemplateTests} on the stream store: demand-bounded takes, retries,
 * dead letters, cancellation, extend, without blocking a non-blocking thread.
 */
@Tag("tests-apart")
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
class StreamReactiveQueueTemplateTests extends ReactiveQueueTemplateTests {

	@Override
	QueueStore store() {
		return QueueStore.STREAM;
	}

}
