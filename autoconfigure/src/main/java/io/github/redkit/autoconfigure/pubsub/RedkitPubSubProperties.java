package io.github.redkit.autoconfigure.pubsub;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Properties of Redkit's pub/sub: the channel publisher and durable control state.
 */
@ConfigurationProperties("redkit.pubsub")
public class RedkitPubSubProperties {

	/** Whether Redkit's pub/sub beans are created. */
	private boolean enabled = true;

	/** Durable control state. */
	private final Control control = new Control();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Control getControl() {
		return this.control;
	}

	/**
	 * Durable control state.
	 */
	public static class Control {

		/**
		 * Channel changes are announced on; defaults to "<key-prefix>:pubsub:control".
		 */
		private @Nullable String channel;

		/** How long a group's state lives after its last change (every key has a TTL). */
		private Duration stateTtl = Duration.ofDays(30);

		/**
		 * How long a subscriber's acknowledgement lives; renewed every third of it while
		 * the process lives.
		 */
		private Duration ackTtl = Duration.ofMinutes(1);

		/**
		 * Id this process acknowledges under; defaults to
		 * "<spring.application.name>@<host>:<pid>".
		 */
		private @Nullable String subscriberId;

		public @Nullable String getChannel() {
			return this.channel;
		}

		public void setChannel(@Nullable String channel) {
			this.channel = channel;
		}

		public Duration getStateTtl() {
			return this.stateTtl;
		}

		public void setStateTtl(Duration stateTtl) {
			this.stateTtl = stateTtl;
		}

		public Duration getAckTtl() {
			return this.ackTtl;
		}

		public void setAckTtl(Duration ackTtl) {
			this.ackTtl = ackTtl;
		}

		public @Nullable String getSubscriberId() {
			return this.subscriberId;
		}

		public void setSubscriberId(@Nullable String subscriberId) {
			this.subscriberId = subscriberId;
		}

	}

}
