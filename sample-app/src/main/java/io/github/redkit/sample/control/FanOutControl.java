package io.github.redkit.sample.control;

import io.github.redkit.pubsub.ControlSnapshot;
import io.github.redkit.pubsub.ControlStateListener;
import io.github.redkit.queue.QueueListenerContainer;
import io.github.redkit.queue.QueueListenerRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

/**
 * Applies the {@code fanout} control group on every instance: {@code throttle} (messages
 * per second, 0 = unlimited) and {@code run} ({@code false} stops the fan-out consumers;
 * messages wait in the queue until they run again). Applying a snapshot twice changes
 * nothing, as the control state requires.
 */
@Component
class FanOutControl implements ControlStateListener {

	static final String GROUP = "fanout";

	private static final Log logger = LogFactory.getLog(FanOutControl.class);

	private final FanOutThrottle throttle;

	private final ObjectProvider<QueueListenerRegistry> registry;

	FanOutControl(FanOutThrottle throttle, ObjectProvider<QueueListenerRegistry> registry) {
		this.throttle = throttle;
		this.registry = registry;
	}

	@Override
	public String group() {
		return GROUP;
	}

	@Override
	public void onControlState(ControlSnapshot snapshot) {
		this.throttle.setRate(snapshot.getLong("throttle", 0));
		boolean run = snapshot.getBoolean("run", true);
		QueueListenerRegistry listeners = this.registry.getIfAvailable();
		if (listeners == null || !listeners.isRunning()) {
			return;
		}
		for (QueueListenerContainer container : listeners.containers()) {
			if (container.queue().equals("fanout") && container.isRunning() != run) {
				logger.info((run ? "Resuming" : "Pausing") + " the fan-out workers (control version "
						+ snapshot.version() + ")");
				if (run) {
					container.start();
				}
				else {
					container.stop();
				}
			}
		}
	}

	boolean running() {
		QueueListenerRegistry listeners = this.registry.getIfAvailable();
		return listeners != null && listeners.containers()
			.stream()
			.anyMatch((container) -> container.queue().equals("fanout") && container.isRunning());
	}

}
