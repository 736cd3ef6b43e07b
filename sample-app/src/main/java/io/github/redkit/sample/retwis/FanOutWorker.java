package io.github.redkit.sample.retwis;

import java.util.List;

import io.github.redkit.queue.QueueListener;
import io.github.redkit.sample.control.FanOutThrottle;

import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

/**
 * Fan-out on write: pushes a new post id onto every follower's timeline. The queue is
 * reliable (at least once), so a worker that dies mid-way leaves the message to be
 * delivered again; a repeat may push the id twice, which the timeline reader removes.
 */
@Component
class FanOutWorker {

	private final StringRedisTemplate redis;

	private final Social social;

	private final FanOutThrottle throttle;

	FanOutWorker(StringRedisTemplate redis, Social social, FanOutThrottle throttle) {
		this.redis = redis;
		this.social = social;
		this.throttle = throttle;
	}

	@QueueListener(queue = PostWriter.FAN_OUT_QUEUE, concurrency = "${sample.fanout.concurrency:2}")
	void fanOut(FanOut job) throws InterruptedException {
		this.throttle.acquire();
		List<Long> followers = this.social.followers(job.authorId());
		String postId = Long.toString(job.postId());
		this.redis.executePipelined(new SessionCallback<Object>() {
			@Override
			@SuppressWarnings({ "unchecked", "NullAway" }) // a pipelined callback must
															// return null
			public Object execute(RedisOperations operations) {
				for (long follower : followers) {
					operations.opsForList().leftPush(Keys.timeline(follower), postId);
					operations.opsForList().trim(Keys.timeline(follower), 0, PostWriter.TIMELINE_LENGTH - 1);
				}
				return null;
			}
		});
	}

}
