package io.github.redkit.cache;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.cache.RedkitCacheAutoConfiguration;
import io.github.redkit.testsupport.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.cache.autoconfigure.metrics.CacheMetricsAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.cache.annotation.CacheEvict;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * An application with {@code @EnableCaching}, Boot's cache auto-configuration and
 * Redkit's customization, for the cache behaviour tests.
 */
final class CacheTestApp {

	/** Loader calls, by key, shared by every context of the JVM. */
	static final Map<String, AtomicInteger> LOADS = new ConcurrentHashMap<>();

	private CacheTestApp() {
	}

	static ApplicationContextRunner runner(RedisServer server, String... properties) {
		return new ApplicationContextRunner().withUserConfiguration(Application.class)
			.withPropertyValues(server.springProperties())
			.withPropertyValues("spring.cache.type=redis")
			.withPropertyValues(properties);
	}

	/**
	 * The application {@link #runner} runs, started for tests that share one: the caller
	 * closes it.
	 * @param server the Redis it caches in
	 * @param properties more properties
	 * @return the started application
	 */
	static ConfigurableApplicationContext start(RedisServer server, String... properties) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		TestPropertyValues.of(server.springProperties())
			.and("spring.cache.type=redis")
			.and(properties)
			.applyTo(context);
		context.register(Application.class);
		context.refresh();
		return context;
	}

	static int loads(String key) {
		return LOADS.computeIfAbsent(key, (k) -> new AtomicInteger()).get();
	}

	record Product(String id, String name, long priceCents) {
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
			RedkitAutoConfiguration.class, RedkitCacheAutoConfiguration.class, CacheAutoConfiguration.class,
			CacheMetricsAutoConfiguration.class })
	@Import(Config.class)
	static class Application {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableCaching
	static class Config {

		@Bean
		Catalog catalog() {
			return new Catalog();
		}

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

	/**
	 * A slow loader with one method per cache configuration under test.
	 */
	static class Catalog {

		private volatile Duration delay = Duration.ZERO;

		private volatile Runnable beforeLoad = () -> {
		};

		/**
		 * Makes every load slow. A method, not a field, because the bean is a CGLIB
		 * proxy: a field written through the proxy never reaches the target that loads.
		 * @param delay how long each load sleeps
		 * @param beforeLoad runs inside every load, before the sleep
		 */
		public void slowDown(Duration delay, Runnable beforeLoad) {
			this.delay = delay;
			this.beforeLoad = beforeLoad;
		}

		@Cacheable(cacheNames = "products", sync = true)
		public Product product(String id) {
			return load(id, new Product(id, "Product " + id, 1999));
		}

		@Cacheable(cacheNames = "products")
		public Product productUnsynced(String id) {
			return load(id, new Product(id, "Product " + id, 1999));
		}

		@Cacheable(cacheNames = "short-lived", sync = true)
		public String shortLived(String id) {
			return load(id, "value-" + id);
		}

		@Cacheable(cacheNames = "everything-else")
		public String defaults(String id) {
			return load(id, "value-" + id);
		}

		@Cacheable(cacheNames = "hot", sync = true)
		public String hot(String id) {
			return load(id, "hot-" + id + "-" + loads(id));
		}

		@Cacheable(cacheNames = "resilient")
		public String resilient(String id) {
			return load(id, "resilient-" + id);
		}

		@CacheEvict(cacheNames = "products", allEntries = true)
		public void clearProducts() {
		}

		private <T> T load(String key, T value) {
			LOADS.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet();
			this.beforeLoad.run();
			if (!this.delay.isZero()) {
				try {
					Thread.sleep(this.delay.toMillis());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			return value;
		}

	}

}
