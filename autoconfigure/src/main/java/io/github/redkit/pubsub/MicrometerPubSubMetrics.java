package io.github.redkit.pubsub;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@link PubSubMetrics} as Micrometer meters: {@code redkit.pubsub.published} (tag
 * {@code outcome}: {@code delivered} or {@code unheard}), {@code redkit.pubsub.messages},
 * {@code redkit.pubsub.bad-payloads}, {@code redkit.pubsub.resubscribes} (counters) and
 * {@code redkit.pubsub.subscribed} (gauge, 1 or 0).
 */
public final class MicrometerPubSubMetrics implements PubSubMetrics {

	private final Counter delivered;

	private final Counter unheard;

	private final Counter messages;

	private final Counter badPayloads;

	private final Counter resubscribes;

	private final MeterRegistry registry;

	/**
	 * Creates the meters.
	 * @param registry the registry
	 */
	public MicrometerPubSubMetrics(MeterRegistry registry) {
		this.registry = registry;
		this.delivered = published(registry, "delivered");
		this.unheard = published(registry, "unheard");
		this.messages = Counter.builder("redkit.pubsub.messages")
			.description("Messages received on the control channel")
			.register(registry);
		this.badPayloads = Counter.builder("redkit.pubsub.bad-payloads")
			.description("Messages that could not be read and were dropped")
			.register(registry);
		this.resubscribes = Counter.builder("redkit.pubsub.resubscribes")
			.description("Subscriptions renewed after a reconnect")
			.register(registry);
	}

	private static Counter published(MeterRegistry registry, String outcome) {
		return Counter.builder("redkit.pubsub.published")
			.description("Payloads published")
			.tag("outcome", outcome)
			.register(registry);
	}

	@Override
	public void published(long receivers) {
		((receivers > 0) ? this.delivered : this.unheard).increment();
	}

	@Override
	public void received() {
		this.messages.increment();
	}

	@Override
	public void badPayload() {
		this.badPayloads.increment();
	}

	@Override
	public void resubscribed() {
		this.resubscribes.increment();
	}

	@Override
	public void watch(ControlStateSubscription subscription) {
		Gauge.builder("redkit.pubsub.subscribed", subscription, (s) -> s.isSubscribed() ? 1 : 0)
			.description("Whether the control channel is subscribed")
			.register(this.registry);
	}

}
