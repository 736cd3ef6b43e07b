package io.github.redkit.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import io.github.redkit.cache.CacheJson;
import io.github.redkit.testsupport.RedisServer;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.PropertySource;
import org.springframework.data.redis.cache.RedisCacheConfiguration;
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.serializer.RedisSerializationContext.SerializationPair;

/**
 * The cache hit path ({@code Cache.get(key, loader)}, what
 * {@code @Cacheable(sync = true)} calls) on 1,000 warm keys: Spring's plain
 * {@link RedisCacheManager} with the same JSON values, then the cache manager Spring Boot
 * builds with Redkit's customization (jittered TTL, single flight, statistics on).
 */
final class CacheSuite {

	private CacheSuite() {
	}

	static Suite create() {
		return new Suite("cache hit path", List.of(SpringCacheManager::new, RedkitCacheManager::new));
	}

	record Product(String id, String name, long priceCents) {
	}

	private abstract static class HitPath implements Contender {

		private final Cache cache;

		HitPath(Cache cache) {
			this.cache = cache;
			for (int i = 0; i < Keys.COUNT; i++) {
				cache.put(key(i), new Product("p" + i, "Product " + i, 1999));
			}
			awaitWarm(cache);
		}

		// Spring Data Redis 4 writes a cache's puts asynchronously unless it is told
		// otherwise (immediateWrites, as Redkit's cache writer is): a put returns before
		// Redis has the value, and a run that started reading at once found keys missing
		private static void awaitWarm(Cache cache) {
			long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
			for (int i = 0; i < Keys.COUNT; i++) {
				while (cache.get(key(i)) == null) {
					if (System.nanoTime() > deadline) {
						throw new IllegalStateException("the cache did not hold " + key(i) + " within 10 s");
					}
					Thread.onSpinWait();
				}
			}
		}

		private static String key(int index) {
			return "p" + index;
		}

		@Override
		public void operate(int thread, long iteration) {
			Product product = this.cache.get(key(Keys.index(thread, iteration)), () -> {
				throw new IllegalStateException("benchmark keys are warm");
			});
			if (product == null) {
				throw new IllegalStateException("missing value");
			}
		}

	}

	static final class SpringCacheManager extends HitPath {

		private final ConfigurableApplicationContext context;

		SpringCacheManager(RedisServer redis) {
			this(Clients.springContext(redis));
		}

		private SpringCacheManager(ConfigurableApplicationContext context) {
			super(plainCache(context.getBean(RedisConnectionFactory.class)));
			this.context = context;
		}

		private static Cache plainCache(RedisConnectionFactory connectionFactory) {
			RedisCacheManager manager = RedisCacheManager.builder(connectionFactory)
				.cacheDefaults(RedisCacheConfiguration.defaultCacheConfig()
					.entryTtl(Duration.ofMinutes(10))
					.serializeValuesWith(SerializationPair
						.fromSerializer(CacheJson.serializer(JsonMapper.builder().build(), List.of()))))
				.build();
			manager.afterPropertiesSet();
			return Objects.requireNonNull(manager.getCache("bench-plain"));
		}

		@Override
		public String name() {
			return "Spring RedisCacheManager (JSON values)";
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	static final class RedkitCacheManager extends HitPath {

		private final ConfigurableApplicationContext context;

		RedkitCacheManager(RedisServer redis) {
			this(Clients.springContext(redis, CachingConfiguration.class));
		}

		private RedkitCacheManager(ConfigurableApplicationContext context) {
			super(Objects.requireNonNull(context.getBean(CacheManager.class).getCache("bench-redkit")));
			this.context = context;
		}

		@Override
		public String name() {
			return "Redkit-customized RedisCacheManager";
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableCaching
	@PropertySource("classpath:cache-suite.properties")
	static class CachingConfiguration {

	}

}
