package io.github.redkit.pubsub.internal;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the control-state subscription: UP while the control channel is subscribed,
 * DOWN otherwise, with the subscription counters as details.
 */
public class ControlStateHealthIndicator extends AbstractHealthIndicator {

	private final ControlStateSubscription subscription;

	/**
	 * Creates the indicator.
	 * @param subscription the subscription to report on
	 */
	public ControlStateHealthIndicator(ControlStateSubscription subscription) {
		this.subscription = subscription;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		(this.subscription.isSubscribed() ? builder.up() : builder.down())
			.withDetail("subscribed", this.subscription.isSubscribed())
			.withDetail("resubscribes", Math.max(0, this.subscription.subscriptions() - 1))
			.withDetail("messages", this.subscription.messages())
			.withDetail("badPayloads", this.subscription.badPayloads())
			.withDetail("versions", this.subscription.deliveredVersions());
	}

}
