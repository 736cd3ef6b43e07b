package io.github.redkit.sample.profile;

import io.github.redkit.sample.retwis.Keys;
import io.github.redkit.sample.retwis.Social;
import io.github.redkit.sample.retwis.Users;

import org.springframework.cache.annotation.Cacheable;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * Profiles are read often and change slowly: cached with the {@code profiles} TTL from
 * {@code application.yml} (counts may lag that long), computed once in the cluster on a
 * miss ({@code sync = true}).
 */
@Service
public class Profiles {

	private final StringRedisTemplate redis;

	private final Users users;

	private final Social social;

	public Profiles(StringRedisTemplate redis, Users users, Social social) {
		this.redis = redis;
		this.users = users;
		this.social = social;
	}

	@Cacheable(cacheNames = "profiles", key = "#name", sync = true)
	public Profile profile(String name) {
		long id = this.users.require(name);
		Long posts = this.redis.opsForList().size(Keys.posts(id));
		Object lastSeen = this.redis.opsForHash().get(Keys.user(id), "lastSeen");
		return new Profile(id, name, this.social.count(Keys.followers(id)), this.social.count(Keys.following(id)),
				(posts != null) ? posts : 0, (lastSeen != null) ? Long.parseLong((String) lastSeen) : 0);
	}

}
