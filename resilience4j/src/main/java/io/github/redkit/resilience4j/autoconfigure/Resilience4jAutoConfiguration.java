package io.github.redkit.resilience4j.autoconfigure;

import io.github.redkit.autoconfigure.EarlyProperties;
import io.github.redkit.autoconfigure.GaugeReads;
import io.github.redkit.autoconfigure.RedkitProperties;
import io.github.redkit.concurrency.ConcurrencyLimiter;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.resilience4j.PermitsLeft;
import io.github.resilience4j.bulkhead.BulkheadRegistry;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Resilience4j support: the rate limiters and semaphore bulkheads named under
 * {@code redkit.resilience4j} take their permits from Redkit's distributed limits, so
 * that an application's {@code @RateLimiter}, {@code @Bulkhead},
 * {@code resilience4j.*.instances} and Resilience4j's own events, meters, fallbacks and
 * operators hold across instances. Works with Resilience4j's Boot 4 starter
 * ({@code resilience4j-spring-boot4}) and with its Spring 6 wiring alone.
 */
@AutoConfiguration(afterName = { "io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration",
		"io.github.redkit.autoconfigure.concurrency.ConcurrencyLimitAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "redkit.resilience4j.enabled", matchIfMissing = true)
@EnableConfigurationProperties(Resilience4jProperties.class)
public final class Resilience4jAutoConfiguration {

	private static final String PREFIX = "redkit.resilience4j";

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean({ RedisConnectionFactory.class, RedisKeyspace.class })
	PermitsLeft redkitResilience4jPermitsLeft(RedisConnectionFactory connectionFactory, RedisKeyspace keyspace,
			RedkitProperties redkit) {
		// the gauge reads it: never while scraped
		return PermitsLeft.inBackground(PermitsLeft.fromRedis(connectionFactory, keyspace), GaugeReads.refresh(redkit));
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(RateLimiterRegistry.class)
	static class RateLimiterConfiguration {

		// static, and bound from the environment: a post-processor exists before the
		// properties bean could be bound
		@Bean
		@ConditionalOnMissingBean
		static RateLimiterRegistryPostProcessor redkitRateLimiterRegistryPostProcessor(Environment environment,
				ObjectProvider<io.github.redkit.ratelimit.RateLimiter> limiter,
				ObjectProvider<PermitsLeft> permitsLeft) {
			Resilience4jProperties properties = EarlyProperties.bind(environment, PREFIX, Resilience4jProperties.class);
			return new RateLimiterRegistryPostProcessor(properties.getRateLimiters(), limiter, permitsLeft);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(BulkheadRegistry.class)
	static class BulkheadConfiguration {

		@Bean
		@ConditionalOnMissingBean
		static BulkheadRegistryPostProcessor redkitBulkheadRegistryPostProcessor(Environment environment,
				ObjectProvider<ConcurrencyLimiter> limiter) {
			Resilience4jProperties properties = EarlyProperties.bind(environment, PREFIX, Resilience4jProperties.class);
			return new BulkheadRegistryPostProcessor(properties.getBulkheads(), limiter);
		}

	}

}
