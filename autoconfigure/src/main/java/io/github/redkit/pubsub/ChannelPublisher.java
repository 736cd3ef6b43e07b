package io.github.redkit.pubsub;

/**
 * Publishes payloads as JSON on a Redis channel. Subscribers are plain Spring Data Redis
 * listeners ({@code @RedisListener(topic = "...")} or a {@code MessageListener} on the
 * container). Pub/sub has no delivery guarantee: a subscriber that is disconnected misses
 * the message; use {@link ControlState} for state that must converge.
 */
public interface ChannelPublisher {

	/**
	 * Publishes a payload.
	 * @param channel the channel
	 * @param payload the payload, written as JSON (a {@code String} too: {@code "text"})
	 * @return how many subscribers received it (in a cluster: those of the node that
	 * received the PUBLISH)
	 */
	long publish(String channel, Object payload);

}
