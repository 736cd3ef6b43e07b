package io.github.redkit.queue;

import java.util.Map;

import io.github.redkit.core.RedkitObservationContext;
import io.github.redkit.core.RedkitObservationKind;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import org.jspecify.annotations.Nullable;

/**
 * The context of a handled queue message: the tracing handler reads the sender's trace
 * context from the message's headers (the carrier) and continues it.
 */
public class RedkitQueueHandleContext extends ReceiverContext<Map<String, String>> implements RedkitObservationContext {

	private final String queue;

	private volatile @Nullable String outcome;

	/**
	 * Creates a context.
	 * @param queue the queue name
	 * @param headers the message's headers
	 */
	public RedkitQueueHandleContext(String queue, Map<String, String> headers) {
		super((carrier, key) -> carrier.get(key), Kind.CONSUMER);
		setCarrier(headers);
		setRemoteServiceName("redis");
		this.queue = queue;
	}

	@Override
	public RedkitObservationKind getObservationKind() {
		return QueueObservationKind.HANDLE;
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
