package io.github.redkit.pubsub;

import io.github.redkit.core.RedkitMetrics;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.Assert;

/**
 * Publishes payloads as JSON with Jackson 3 ({@code PUBLISH channel json}).
 */
public class JsonChannelPublisher implements ChannelPublisher {

	private final StringRedisTemplate template;

	private final JsonMapper mapper;

	private final RedkitMetrics metrics;

	/**
	 * Creates a publisher.
	 * @param template the template to publish with
	 * @param mapper the JSON mapper
	 * @param metrics where publications are counted
	 */
	public JsonChannelPublisher(StringRedisTemplate template, JsonMapper mapper, RedkitMetrics metrics) {
		this.template = template;
		this.mapper = mapper;
		this.metrics = metrics;
	}

	@Override
	public long publish(String channel, Object payload) {
		Assert.hasText(channel, "channel must not be empty");
		String message = this.mapper.writeValueAsString(payload);
		Long receivers = this.template.convertAndSend(channel, message);
		long count = (receivers != null) ? receivers : 0;
		this.metrics.increment(PubSubMeters.PUBLISHED, "outcome", (count > 0) ? "delivered" : "unheard");
		return count;
	}

}
