package io.github.redkit.pubsub.internal;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.RedkitOutcomes;
import io.github.redkit.pubsub.ChannelPublisher;
import io.github.redkit.pubsub.PubSubObservationKind;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.Assert;

/**
 * Publishes payloads as JSON with Jackson 3 ({@code PUBLISH channel json}).
 */
public class JsonChannelPublisher implements ChannelPublisher {

	private static final RedkitOutcomes<Long> PUBLISHED = RedkitOutcomes.of(JsonChannelPublisher::outcome);

	private final StringRedisTemplate template;

	private final JsonMapper mapper;

	private final RedkitMetrics metrics;

	private final RedkitObservations observations;

	/**
	 * Creates a publisher.
	 * @param template the template to publish with
	 * @param mapper the JSON mapper
	 * @param metrics where publications are counted
	 * @param observations where publications are observed (as
	 * {@code redkit.pubsub.publish}), {@link RedkitObservations#NONE} for nowhere
	 */
	public JsonChannelPublisher(StringRedisTemplate template, JsonMapper mapper, RedkitMetrics metrics,
			RedkitObservations observations) {
		Assert.notNull(observations, "observations must not be null");
		this.observations = observations;
		this.template = template;
		this.mapper = mapper;
		this.metrics = metrics;
	}

	@Override
	public long publish(String channel, Object payload) {
		Assert.hasText(channel, "channel must not be empty");
		// like the meter, not named by the channel: channels may be per user or per order
		return this.observations.observe(PubSubObservationKind.PUBLISH, "publish", () -> {
			String message = this.mapper.writeValueAsString(payload);
			Long receivers = this.template.convertAndSend(channel, message);
			long count = (receivers != null) ? receivers : 0;
			this.metrics.increment(PubSubMeters.PUBLISHED, "outcome", outcome(count));
			return count;
		}, PUBLISHED);
	}

	private static String outcome(long receivers) {
		return (receivers > 0) ? "delivered" : "unheard";
	}

}
