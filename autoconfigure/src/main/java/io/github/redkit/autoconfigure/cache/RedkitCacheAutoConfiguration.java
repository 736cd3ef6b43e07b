package io.github.redkit.autoconfigure.cache;

import java.util.Map;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.cache.CacheJson;
import io.github.redkit.cache.CacheSpec;
import io.github.redkit.cache.RedkitCacheManagerCustomizer;
import io.github.redkit.cache.internal.RedkitCacheWriter;
import io.github.redkit.cache.internal.ScanBatchStrategy;
import io.github.redkit.cache.internal.SingleFlight;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.cache.autoconfigure.RedisCacheManagerBuilderCustomizer;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.cache.RedisCacheWriter;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.util.ClassUtils;

/**
 * Customizes Spring Boot's Redis cache manager (see
 * {@link RedkitCacheManagerCustomizer}); it never creates a cache manager of its own.
 */
@AutoConfiguration(after = RedkitAutoConfiguration.class,
		beforeName = "org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration")
@ConditionalOnClass({ RedisCacheManagerBuilderCustomizer.class, RedisCacheWriter.class })
@ConditionalOnBean(RedisScriptRunner.class)
@ConditionalOnBooleanProperty(name = "redkit.cache.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedkitCacheProperties.class)
public final class RedkitCacheAutoConfiguration {

	private static final boolean JACKSON_PRESENT = ClassUtils.isPresent("tools.jackson.databind.json.JsonMapper",
			RedkitCacheAutoConfiguration.class.getClassLoader());

	@Bean
	@ConditionalOnMissingBean
	SingleFlight redkitCacheSingleFlight(RedisScriptRunner runner, RedisKeyspace keyspace) {
		return new SingleFlight(runner, keyspace);
	}

	@Bean
	@ConditionalOnMissingBean
	RedkitCacheManagerCustomizer redkitCacheManagerCustomizer(RedkitCacheProperties properties,
			RedisScriptRunner runner, SingleFlight singleFlight, RedkitMetrics metrics, BeanFactory beanFactory) {
		CacheSpec defaults = RedkitCachePropertiesMapper.defaults(properties);
		Map<String, CacheSpec> caches = RedkitCachePropertiesMapper.caches(properties);
		return new RedkitCacheManagerCustomizer(defaults, caches, RedkitCachePropertiesMapper.jitter(properties),
				valueSerializer(properties, beanFactory),
				(policies) -> new RedkitCacheWriter(
						RedisCacheWriter.create(runner.connectionFactory(),
								(writer) -> writer.batchStrategy(new ScanBatchStrategy(properties.getClearBatchSize()))
									// a put is visible once it returns: single flight
									// relies on it
									.immediateWrites()),
						policies, singleFlight, runner, metrics, properties.getStaleOnError().getMaxEntries()),
				properties.isEnableStatistics());
	}

	private static @Nullable RedisSerializer<Object> valueSerializer(RedkitCacheProperties properties,
			BeanFactory beanFactory) {
		if (!properties.isJsonValues()) {
			return null;
		}
		if (!JACKSON_PRESENT) {
			throw new IllegalStateException(
					"redkit.cache.json-values=true needs Jackson 3 (tools.jackson.core:jackson-databind) on the class path");
		}
		return JsonSupport.serializer(properties, beanFactory);
	}

	/**
	 * Kept apart so that the configuration class loads without Jackson.
	 */
	private static final class JsonSupport {

		static RedisSerializer<Object> serializer(RedkitCacheProperties properties, BeanFactory beanFactory) {
			JsonMapper json = beanFactory.getBeanProvider(JsonMapper.class)
				.getIfAvailable(() -> JsonMapper.builder().build());
			return CacheJson.serializer(json, properties.getTrustedPackages());
		}

	}

}
