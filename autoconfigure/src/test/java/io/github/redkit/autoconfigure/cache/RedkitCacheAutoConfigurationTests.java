package io.github.redkit.autoconfigure.cache;

import java.util.Map;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.cache.CachePolicy;
import io.github.redkit.cache.CacheSpec;
import io.github.redkit.cache.RedkitCacheManagerCustomizer;
import io.github.redkit.cache.internal.JitteredTtl;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.cache.RedisCache;
import org.springframework.data.redis.cache.RedisCacheManager;

class RedkitCacheAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				RedkitCacheAutoConfiguration.class, CacheAutoConfiguration.class))
		.withUserConfiguration(Caching.class)
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withPropertyValues("spring.cache.type=redis");

	@Test
	void customizesBootsCacheManagerInsteadOfReplacingIt() {
		this.runner.withPropertyValues("redkit.cache.caches.orders.ttl=5m", "spring.cache.cache-names=orders,users")
			.run((context) -> {
				assertThat(context).hasSingleBean(RedkitCacheManagerCustomizer.class)
					.hasSingleBean(RedisCacheManager.class);
				RedisCacheManager manager = context.getBean(RedisCacheManager.class);
				RedisCache orders = (RedisCache) manager.getCache("orders");
				RedisCache users = (RedisCache) manager.getCache("users");
				assertThat(orders.getCacheConfiguration().getTtlFunction()).isInstanceOfSatisfying(JitteredTtl.class,
						(ttl) -> assertThat(ttl.ttl()).hasMinutes(5));
				assertThat(users.getCacheConfiguration().getTtlFunction()).isInstanceOfSatisfying(JitteredTtl.class,
						(ttl) -> assertThat(ttl.ttl()).hasMinutes(10));
				assertThat(orders.getCacheConfiguration().getKeyPrefixFor("orders")).isEqualTo("orders::");
			});
	}

	@Test
	void canBeTurnedOff() {
		this.runner.withPropertyValues("redkit.cache.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RedkitCacheManagerCustomizer.class)
				.hasSingleBean(RedisCacheManager.class));
	}

	@Test
	void backsOffWhenTheUserDefinesTheCustomizer() {
		this.runner.withUserConfiguration(OwnCustomizer.class)
			.run((context) -> assertThat(context).getBean(RedkitCacheManagerCustomizer.class)
				.isSameAs(context.getBean(OwnCustomizer.class).customizer));
	}

	@Test
	void aBadJitterFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("redkit.cache.ttl-jitter=150%")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redkit.cache.ttl-jitter"));
	}

	@Test
	void aNegativeCacheTtlFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("redkit.cache.caches.orders.ttl=-1s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redkit.cache.caches.orders.ttl"));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableCaching
	static class Caching {

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnCustomizer {

		final RedkitCacheManagerCustomizer customizer = new RedkitCacheManagerCustomizer(
				new CacheSpec(java.time.Duration.ofMinutes(1), true, CachePolicy.PLAIN), Map.of(), 0, null,
				(policies) -> null, false) {

			@Override
			public void customize(RedisCacheManager.RedisCacheManagerBuilder builder) {
			}

		};

		@Bean
		RedkitCacheManagerCustomizer ownCustomizer() {
			return this.customizer;
		}

	}

}
