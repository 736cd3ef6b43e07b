package io.github.redkit.cache;

import java.util.UUID;

import io.github.redkit.cache.CacheTestApp.Catalog;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * With stale-on-error a cache keeps answering with the last value this instance saw while
 * Redis is down; without it the failure reaches the caller. A dedicated server is
 * stopped.
 */
class StaleOnErrorTests {

	@PrivateRedis
	private static RedisServer server;

	@Test
	void servesTheLastValueSeenWhileRedisIsDown() {
		CacheTestApp
			.runner(server, "redkit.cache.caches.resilient.stale-on-error=true", "spring.data.redis.timeout=300ms")
			.run((context) -> {
				Catalog catalog = context.getBean(Catalog.class);
				String id = UUID.randomUUID().toString();
				String value = catalog.resilient(id);
				assertThat(catalog.resilient(id)).isEqualTo(value);
				server.stop();
				try {
					assertThat(catalog.resilient(id)).isEqualTo(value);
					assertThat(CacheTestApp.loads(id)).isEqualTo(1);
					String other = UUID.randomUUID().toString();
					assertThat(catalog.resilient(other)).isEqualTo("resilient-" + other);
					assertThatException().isThrownBy(() -> catalog.defaults(UUID.randomUUID().toString()));
				}
				finally {
					server.start();
				}
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.get("redkit.cache.redis-errors").tag("outcome", "stale").counter().count())
					.isEqualTo(1);
				assertThat(registry.get("redkit.cache.redis-errors").tag("outcome", "miss").counter().count())
					.isEqualTo(1);
			});
	}

	@Test
	void clearingOneCacheKeepsTheStaleValuesOfTheOthers() {
		CacheTestApp.runner(server, "redkit.cache.stale-on-error.enabled=true", "spring.data.redis.timeout=300ms")
			.run((context) -> {
				Catalog catalog = context.getBean(Catalog.class);
				String id = UUID.randomUUID().toString();
				String value = catalog.resilient(id);
				catalog.clearProducts();
				server.stop();
				try {
					assertThat(catalog.resilient(id)).isEqualTo(value);
					assertThat(CacheTestApp.loads(id)).as("served the kept value, not a new load").isEqualTo(1);
				}
				finally {
					server.start();
				}
			});
	}

}
