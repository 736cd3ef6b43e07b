package io.github.redkit.sample.retwis;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.github.redkit.sample.web.ApiException;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * Follow relations: two sorted sets per user scored by the time the relation began.
 */
@Service
public class Social {

	private final StringRedisTemplate redis;

	public Social(StringRedisTemplate redis) {
		this.redis = redis;
	}

	public void follow(User user, long other) {
		if (other == user.id()) {
			throw ApiException.badRequest("You cannot follow yourself");
		}
		double now = System.currentTimeMillis();
		this.redis.opsForZSet().add(Keys.following(user.id()), Long.toString(other), now);
		this.redis.opsForZSet().add(Keys.followers(other), Long.toString(user.id()), now);
	}

	public void unfollow(User user, long other) {
		this.redis.opsForZSet().remove(Keys.following(user.id()), Long.toString(other));
		this.redis.opsForZSet().remove(Keys.followers(other), Long.toString(user.id()));
	}

	public List<Long> followers(long id) {
		return ids(this.redis.opsForZSet().reverseRange(Keys.followers(id), 0, -1));
	}

	public List<Long> following(long id) {
		return ids(this.redis.opsForZSet().reverseRange(Keys.following(id), 0, -1));
	}

	/**
	 * Followers two users have in common ({@code ZINTER}, Redis 6.2).
	 * @param a one user
	 * @param b the other
	 * @return the common followers' ids
	 */
	public List<Long> commonFollowers(long a, long b) {
		return ids(this.redis.opsForZSet().intersect(Keys.followers(a), List.of(Keys.followers(b))));
	}

	public long count(String key) {
		Long size = this.redis.opsForZSet().zCard(key);
		return (size != null) ? size : 0;
	}

	private static List<Long> ids(Set<String> members) {
		List<Long> ids = new ArrayList<>();
		if (members != null) {
			members.forEach((member) -> ids.add(Long.valueOf(member)));
		}
		return ids;
	}

}
