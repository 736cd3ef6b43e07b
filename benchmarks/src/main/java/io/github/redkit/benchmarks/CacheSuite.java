package io.github.redkit.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.cache.CacheJson;
import io.github.redkit.test.RedisServer;
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

		private final AtomicLong misses = new AtomicLong();

		HitPath(Cache cache) {
			this.cache = cache;
			for (int i = 0; i < Keys.COUNT; i++) {
				cache.put(key(i), product(i));
			}
		}

		private static Product product(int index) {
			return new Product(key(index), "Product " + index, 1999);
		}

		/**
		 * Reports the misses: on a warm cache there should be none, but a run at 16
		 * threads once in a few saw the first GET of a fresh context answer nothing for a
		 * key its constructor had written (and that Redis held when asked again); the
		 * value is loaded and written back then, and the extra command shows in the
		 * commands per operation.
		 */
		void reportMisses() {
			long misses = this.misses.get();
			if (misses > 0) {
				System.out.printf("  (%s: %d cache misses on warm keys, loaded again)%n", name(), misses);
			}
		}

		private static String key(int index) {
			return "p" + index;
		}

		@Override
		public void operate(int thread, long iteration) {
			int index = Keys.index(thread, iteration);
			Product product = this.cache.get(key(index), () -> {
				// rare: see close()
				this.misses.incrementAndGet();
				return product(index);
			});
			if (product == null || !product.id().equals(key(index))) {
				throw new IllegalStateException("wrong value for " + key(index) + ": " + product);
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
			reportMisses();
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
			reportMisses();
			this.context.close();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableCaching
	@PropertySource("classpath:cache-suite.properties")
	static class CachingConfiguration {

	}

}
