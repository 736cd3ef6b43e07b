package io.github.redkit.queue;

import java.util.Map;

import io.github.redkit.core.RedkitObservationContext;
import io.github.redkit.core.RedkitObservationKind;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;
import org.jspecify.annotations.Nullable;

/**
 * The context of a queue send: the tracing handler writes the trace context into the
 * message's headers (the carrier).
 */
public class RedkitQueueSendContext extends SenderContext<Map<String, String>> implements RedkitObservationContext {

	private final String queue;

	private volatile @Nullable String outcome;

	/**
	 * Creates a context.
	 * @param queue the queue name
	 * @param headers the message's headers, filled in by the tracing handler
	 */
	public RedkitQueueSendContext(String queue, Map<String, String> headers) {
		super((carrier, key, value) -> {
			if (carrier != null) {
				carrier.put(key, value);
			}
		}, Kind.PRODUCER);
		setCarrier(headers);
		setRemoteServiceName("redis");
		this.queue = queue;
	}

	@Override
	public RedkitObservationKind getObservationKind() {
		return QueueObservationKind.SEND;
	}

	@Override
	public String getObservedName() {
		return this.queue;
	}

	@Override
	public @Nullable String getOutcome() {
		return this.outcome;
	}

	@Override
	public void setOutcome(@Nullable String outcome) {
		this.outcome = outcome;
	}

}
