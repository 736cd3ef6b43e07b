package io.github.redkit.autoconfigure.pubsub;

import io.github.redkit.autoconfigure.DurationChecks;
import io.github.redkit.core.RedisKeyspace;

/**
 * Turns {@link RedkitPubSubProperties} into what the control state needs, once at
 * start-up; a value that cannot work fails start-up with a message naming its property.
 */
final class RedkitPubSubPropertiesMapper {

	private static final String PREFIX = "redkit.pubsub.control";

	private RedkitPubSubPropertiesMapper() {
	}

	static RedkitPubSubProperties.Control control(RedkitPubSubProperties properties) {
		RedkitPubSubProperties.Control control = properties.getControl();
		if (control.getChannel() != null && control.getChannel().isBlank()) {
			throw new IllegalArgumentException(PREFIX + ".channel must not be blank");
		}
		DurationChecks.positive(control.getStateTtl(), PREFIX + ".state-ttl");
		DurationChecks.positive(control.getAckTtl(), PREFIX + ".ack-ttl");
		return control;
	}

	static String channel(RedkitPubSubProperties.Control control, RedisKeyspace keyspace) {
		return (control.getChannel() != null) ? control.getChannel() : keyspace.key("pubsub").part("control").build();
	}

}
