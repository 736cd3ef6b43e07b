package io.github.redkit.queue.actuate;

import java.util.List;

import io.github.redkit.actuate.RedkitEndpointActivity;
import io.github.redkit.queue.internal.QueueMeters;

/**
 * Queue activity in the endpoint's activity, by queue: settled messages (processed,
 * failed, ...) and listener calls (success, failure).
 */
final class QueueActivity implements RedkitEndpointActivity {

	@Override
	public String name() {
		return "queues";
	}

	@Override
	public String nameTag() {
		return "queue";
	}

	@Override
	public List<String> meters() {
		return List.of(QueueMeters.MESSAGES.name(), QueueMeters.PROCESSING.name());
	}

}
