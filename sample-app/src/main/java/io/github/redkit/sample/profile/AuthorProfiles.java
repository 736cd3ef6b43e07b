package io.github.redkit.sample.profile;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.data.redis.cache.RedisCache;
import org.springframework.data.redis.cache.RedisCacheConfiguration;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * The profiles of many users at once, as a timeline page shows its authors: the cached
 * ones come in one {@code MGET} (seed 000's cache read for many keys) instead of one
 * {@code GET} each; only the misses go through {@link Profiles#profile} (and its single
 * flight), which caches them for the next page. Reading the cache's keys directly
 * bypasses Spring's cache statistics: the {@code MGET} hits are not in
 * {@code cache.gets}.
 */
@Service
public class AuthorProfiles {

	static final String CACHE = "profiles";

	private final StringRedisTemplate redis;

	private final CacheManager caches;

	private final Profiles profiles;

	public AuthorProfiles(StringRedisTemplate redis, CacheManager caches, Profiles profiles) {
		this.redis = redis;
		this.caches = caches;
		this.profiles = profiles;
	}

	/**
	 * The profiles of some users.
	 * @param names the user names, repeats allowed
	 * @return the profile of each distinct name, in the order given
	 */
	public Map<String, Profile> of(Collection<String> names) {
		List<String> distinct = new ArrayList<>(new LinkedHashSet<>(names));
		Map<String, Profile> found = new LinkedHashMap<>();
		if (distinct.isEmpty()) {
			return found;
		}
		Cache cache = this.caches.getCache(CACHE);
		if (cache instanceof RedisCache redisCache) {
			// the cache's own key prefix and serializers, so this reads what @Cacheable
			// wrote
			RedisCacheConfiguration config = redisCache.getCacheConfiguration();
			String prefix = config.usePrefix() ? config.getKeyPrefixFor(CACHE) : "";
			byte[][] keys = distinct.stream()
				.map((name) -> bytes(config.getKeySerializationPair().write(prefix + name)))
				.toArray(byte[][]::new);
			List<byte[]> values = this.redis
				.execute((RedisCallback<List<byte[]>>) (connection) -> connection.stringCommands().mGet(keys));
			for (int i = 0; values != null && i < distinct.size(); i++) {
				byte[] value = values.get(i);
				if (value != null
						&& config.getValueSerializationPair().read(ByteBuffer.wrap(value)) instanceof Profile profile) {
					found.put(distinct.get(i), profile);
				}
			}
		}
		Map<String, Profile> result = new LinkedHashMap<>();
		for (String name : distinct) {
			Profile profile = found.get(name);
			result.put(name, (profile != null) ? profile : this.profiles.profile(name));
		}
		return result;
	}

	private static byte[] bytes(ByteBuffer buffer) {
		byte[] bytes = new byte[buffer.remaining()];
		buffer.get(bytes);
		return bytes;
	}

}
