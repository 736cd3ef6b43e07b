package io.github.redkit.cache;

import java.util.Map;
import java.util.function.Function;

import io.github.redkit.cache.internal.JitteredTtl;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.cache.autoconfigure.RedisCacheManagerBuilderCustomizer;
import org.springframework.data.redis.cache.RedisCacheConfiguration;
import org.springframework.data.redis.cache.RedisCacheManager.RedisCacheManagerBuilder;
import org.springframework.data.redis.cache.RedisCacheWriter;
import org.springframework.data.redis.serializer.RedisSerializationContext.SerializationPair;
import org.springframework.data.redis.serializer.RedisSerializer;

/**
 * Customizes the {@code RedisCacheManager} Spring Boot builds (it is not replaced): a
 * jittered TTL per cache, whether nulls are cached, JSON values, Spring's statistics (for
 * the cache metrics) and {@code RedkitCacheWriter} (single flight, early refresh,
 * stale-on-error, clear with {@code SCAN}). Everything else of Spring Boot's
 * configuration (key prefix, {@code spring.cache.cache-names}, a user's
 * {@code RedisCacheConfiguration} bean) is kept.
 */
public class RedkitCacheManagerCustomizer implements RedisCacheManagerBuilderCustomizer {

	private final CacheSpec defaults;

	private final Map<String, CacheSpec> caches;

	private final double jitter;

	private final @Nullable RedisSerializer<Object> valueSerializer;

	private final Function<Function<String, CachePolicy>, RedisCacheWriter> writerFactory;

	private final boolean enableStatistics;

	/**
	 * Creates the customizer.
	 * @param defaults the spec of caches not named in {@code caches}
	 * @param caches per-cache specs
	 * @param jitter share of the TTL cut at random, in {@code [0, 1)}
	 * @param valueSerializer the value serializer, or {@code null} to keep Spring's
	 * @param writerFactory builds the cache writer from the policy of each cache
	 * @param enableStatistics whether Spring's cache statistics are collected
	 */
	public RedkitCacheManagerCustomizer(CacheSpec defaults, Map<String, CacheSpec> caches, double jitter,
			@Nullable RedisSerializer<Object> valueSerializer,
			Function<Function<String, CachePolicy>, RedisCacheWriter> writerFactory, boolean enableStatistics) {
		this.defaults = defaults;
		this.caches = Map.copyOf(caches);
		this.jitter = jitter;
		this.valueSerializer = valueSerializer;
		this.writerFactory = writerFactory;
		this.enableStatistics = enableStatistics;
	}

	@Override
	public void customize(RedisCacheManagerBuilder builder) {
		RedisCacheConfiguration base = builder.cacheDefaults();
		builder.cacheDefaults(apply(base, this.defaults));
		// caches Boot created from spring.cache.cache-names copied the defaults before us
		for (String name : builder.getConfiguredCaches()) {
			RedisCacheConfiguration existing = builder.getCacheConfigurationFor(name).orElse(base);
			builder.withCacheConfiguration(name, apply(existing, spec(name)));
		}
		this.caches.forEach((name, spec) -> {
			if (!builder.getConfiguredCaches().contains(name)) {
				builder.withCacheConfiguration(name, apply(base, spec));
			}
		});
		builder.cacheWriter(this.writerFactory.apply((name) -> spec(name).policy()));
		if (this.enableStatistics) {
			builder.enableStatistics();
		}
	}

	private CacheSpec spec(String name) {
		return this.caches.getOrDefault(name, this.defaults);
	}

	private RedisCacheConfiguration apply(RedisCacheConfiguration config, CacheSpec spec) {
		RedisCacheConfiguration result = config.entryTtl(new JitteredTtl(spec.ttl(), this.jitter));
		if (this.valueSerializer != null) {
			result = result.serializeValuesWith(SerializationPair.fromSerializer(this.valueSerializer));
		}
		if (!spec.cacheNulls() && config.getAllowCacheNullValues()) {
			result = result.disableCachingNullValues();
		}
		return result;
	}

}
