package io.github.redkit.sample.profile;

import java.time.Duration;

import io.github.redkit.queue.QueueListener;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.sample.retwis.Keys;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * "Last seen" without a write per request: each request schedules a delayed message on
 * the {@code last-seen} queue, which collapses repeats first-wins (seed 000's
 * {@code ZADD NX}), so a busy user costs one write per delay.
 */
@Service
public class LastSeen {

	static final String QUEUE = "last-seen";

	private final QueueTemplate queues;

	private final StringRedisTemplate redis;

	private final Duration delay;

	public LastSeen(QueueTemplate queues, StringRedisTemplate redis,
			@Value("${sample.last-seen.delay:10s}") Duration delay) {
		this.queues = queues;
		this.redis = redis;
		this.delay = delay;
	}

	/**
	 * Notes activity.
	 * @param userId the active user
	 * @return {@code false} when an update was already pending (collapsed)
	 */
	public boolean touch(long userId) {
		return this.queues.sendDelayed(QUEUE, new Seen(userId), this.delay);
	}

	@QueueListener(queue = QUEUE)
	void record(Seen seen) {
		this.redis.opsForHash().put(Keys.user(seen.userId()), "lastSeen", Long.toString(System.currentTimeMillis()));
	}

	/**
	 * The collapsed message: equal for every request of one user.
	 *
	 * @param userId the user
	 */
	public record Seen(long userId) {

	}

}
