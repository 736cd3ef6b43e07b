package io.github.redkit.pubsub;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservation;
import io.github.redkit.core.RedkitObservationKind;
import io.github.redkit.core.RedkitObservations;
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

	private RedkitObservations observations = RedkitObservations.NONE;

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

	/**
	 * Sets where publications are observed (as {@code redkit.pubsub.publish}).
	 * @param observations the observations, {@link RedkitObservations#NONE} by default
	 */
	public void setObservations(RedkitObservations observations) {
		Assert.notNull(observations, "observations must not be null");
		this.observations = observations;
	}

	@Override
	public long publish(String channel, Object payload) {
		Assert.hasText(channel, "channel must not be empty");
		// like the meter, not named by the channel: channels may be per user or per order
		try (RedkitObservation observation = this.observations.start(RedkitObservationKind.PUBLISH, "publish")) {
			try {
				String message = this.mapper.writeValueAsString(payload);
				Long receivers = this.template.convertAndSend(channel, message);
				long count = (receivers != null) ? receivers : 0;
				this.metrics.increment(PubSubMeters.PUBLISHED, "outcome", (count > 0) ? "delivered" : "unheard");
				observation.outcome((count > 0) ? "delivered" : "unheard");
				return count;
			}
			catch (RuntimeException ex) {
				observation.outcome("failed");
				observation.error(ex);
				throw ex;
			}
		}
	}

}
