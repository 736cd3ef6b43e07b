package io.github.redkit.sample.retwis;

import java.util.Map;

import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.ratelimit.RateLimited;
import io.github.redkit.sample.analytics.Analytics;
import io.github.redkit.sample.analytics.EventLog;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * Writes a post: its hash, the author's lists, the global timeline capped with
 * {@code LTRIM}, and a fan-out message for the followers' timelines.
 */
@Service
public class PostWriter {

	static final String FAN_OUT_QUEUE = "fanout";

	static final int TIMELINE_LENGTH = 1000;

	private final StringRedisTemplate redis;

	private final QueueTemplate queues;

	private final Analytics analytics;

	private final EventLog events;

	public PostWriter(StringRedisTemplate redis, QueueTemplate queues, Analytics analytics, EventLog events) {
		this.redis = redis;
		this.queues = queues;
		this.analytics = analytics;
		this.events = events;
	}

	@RateLimited(value = "posts-ip", key = "'ip:' + #ip")
	public Post write(User user, String ip, String text) {
		long id = this.redis.opsForValue().increment(Keys.NEXT_POST_ID);
		long now = System.currentTimeMillis();
		this.redis.opsForHash()
			.putAll(Keys.post(id), Map.of("userId", Long.toString(user.id()), "name", user.name(), "time",
					Long.toString(now), "body", text));
		String postId = Long.toString(id);
		this.redis.opsForList().leftPush(Keys.posts(user.id()), postId);
		this.redis.opsForList().leftPush(Keys.timeline(user.id()), postId);
		this.redis.opsForList().leftPush(Keys.GLOBAL_TIMELINE, postId);
		this.redis.opsForList().trim(Keys.GLOBAL_TIMELINE, 0, TIMELINE_LENGTH - 1);
		this.queues.send(FAN_OUT_QUEUE, new FanOut(id, user.id()));
		this.analytics.postCreated(id, now);
		this.events.append(now, "post:" + id + ":" + user.name());
		return new Post(id, user.id(), user.name(), now, text);
	}

}
