package io.github.redkit.sample.retwis;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * Reads timelines page by page with {@code LRANGE} and loads the posts in one pipeline.
 */
@Service
public class Timelines {

	private final StringRedisTemplate redis;

	public Timelines(StringRedisTemplate redis) {
		this.redis = redis;
	}

	public List<Post> page(String listKey, int page, int size) {
		long start = (long) page * size;
		List<String> ids = this.redis.opsForList().range(listKey, start, start + size - 1);
		if (ids == null || ids.isEmpty()) {
			return List.of();
		}
		// a redelivered fan-out message can push an id twice: show it once
		List<String> unique = new ArrayList<>(new LinkedHashSet<>(ids));
		List<Object> hashes = this.redis.executePipelined(new SessionCallback<Object>() {
			@Override
			@SuppressWarnings({ "unchecked", "NullAway" }) // a pipelined callback must
															// return null
			public Object execute(RedisOperations operations) {
				unique.forEach((id) -> operations.opsForHash().entries(Keys.post(Long.parseLong(id))));
				return null;
			}
		});
		List<Post> posts = new ArrayList<>();
		for (int i = 0; i < unique.size(); i++) {
			@SuppressWarnings("unchecked")
			Map<String, String> hash = (Map<String, String>) hashes.get(i);
			if (hash != null && !hash.isEmpty()) {
				posts.add(new Post(Long.parseLong(unique.get(i)), Long.parseLong(hash.get("userId")),
						hash.getOrDefault("name", ""), Long.parseLong(hash.get("time")),
						hash.getOrDefault("body", "")));
			}
		}
		return posts;
	}

}
