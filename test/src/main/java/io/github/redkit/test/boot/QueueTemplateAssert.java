package io.github.redkit.test.boot;

import io.github.redkit.queue.QueueTemplate;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on the depth of a queue, through {@link QueueTemplate#size(String)}.
 */
public class QueueTemplateAssert extends AbstractAssert<QueueTemplateAssert, QueueTemplate> {

	QueueTemplateAssert(QueueTemplate actual) {
		super(actual, QueueTemplateAssert.class);
	}

	/**
	 * Verifies how many ready messages (neither delayed nor in flight) a queue holds.
	 * @param queue the queue
	 * @param expected the expected count
	 * @return this
	 */
	public QueueTemplateAssert hasSize(String queue, long expected) {
		isNotNull();
		long size = this.actual.size(queue);
		if (size != expected) {
			failWithMessage("Expected queue <%s> to hold %d ready messages, but it holds %d", queue, expected, size);
		}
		return this;
	}

	/**
	 * Verifies that a queue holds no ready message.
	 * @param queue the queue
	 * @return this
	 */
	public QueueTemplateAssert isEmpty(String queue) {
		return hasSize(queue, 0);
	}

}
