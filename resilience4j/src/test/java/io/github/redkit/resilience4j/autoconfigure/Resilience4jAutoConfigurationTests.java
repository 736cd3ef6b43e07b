package io.github.redkit.resilience4j.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.concurrency.ConcurrencyLimitAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.resilience4j.RedkitBulkhead;
import io.github.redkit.resilience4j.RedkitRateLimiter;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import io.github.resilience4j.bulkhead.BulkheadRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedRateLimiterMetrics;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;
import io.github.resilience4j.springboot.bulkhead.autoconfigure.BulkheadAutoConfiguration;
import io.github.resilience4j.springboot.ratelimiter.autoconfigure.RateLimiterAutoConfiguration;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The wiring: which Resilience4j instances become Redkit's, and the start-up errors that
 * name the property at fault.
 */
class Resilience4jAutoConfigurationTests {

	// the auto-configurations involved only: a context of all of them costs seconds each
	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				RateLimitAutoConfiguration.class, ConcurrencyLimitAutoConfiguration.class,
				RateLimiterAutoConfiguration.class, BulkheadAutoConfiguration.class,
				Resilience4jAutoConfiguration.class))
		.withPropertyValues(properties());

	private static String[] properties() {
		List<String> properties = new ArrayList<>(List.of(RedisServers.standalone().springProperties()));
		properties.add("redkit.key-prefix=r4j-wiring-" + UUID.randomUUID());
		properties.add("redkit.rate-limit.limits.api.windows[0].limit=10");
		properties.add("redkit.rate-limit.limits.api.windows[0].period=1s");
		properties.add("redkit.concurrency-limit.limits.exports.limit=2");
		return properties.toArray(String[]::new);
	}

	@Test
	void closingTheContextEndsTheThreadThatReadsThePermitsLeft() {
		// other contexts of this JVM may read permits too: only this one's thread counts
		Set<Thread> before = permitReaders();
		this.runner
			.withPropertyValues("redkit.resilience4j.rate-limiters.backend.limit=api",
					"redkit.metrics.gauge-refresh=5s")
			.run((context) -> {
				MeterRegistry meters = new SimpleMeterRegistry();
				TaggedRateLimiterMetrics.ofRateLimiterRegistry(context.getBean(RateLimiterRegistry.class))
					.bindTo(meters);
				Gauge permits = meters.get("resilience4j.ratelimiter.available.permissions")
					.tag("name", "backend")
					.gauge();
				await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(permits.value()).isEqualTo(10));
				Set<Thread> reading = permitReaders();
				reading.removeAll(before);
				assertThat(reading).hasSize(1);
				context.close();
				// idle, it would live on for half a minute
				await().atMost(Duration.ofSeconds(5))
					.untilAsserted(() -> assertThat(reading).as("alive after the close").noneMatch(Thread::isAlive));
			});
	}

	private static Set<Thread> permitReaders() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().equals("redkit-resilience4j-gauges"))
			.collect(Collectors.toSet());
	}

	@Test
	void theAvailablePermissionsGaugeReturnsAtOnceWhileRedisIsPaused(@PrivateRedis RedisServer redis) {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("spring.data.redis.timeout=2s", "redkit.rate-limit.limits.hourly.windows[0].limit=10",
					"redkit.rate-limit.limits.hourly.windows[0].period=1h",
					"redkit.resilience4j.rate-limiters.backend.limit=hourly", "redkit.metrics.gauge-refresh=100ms")
			.run((context) -> {
				RateLimiterRegistry rateLimiters = context.getBean(RateLimiterRegistry.class);
				MeterRegistry meters = new SimpleMeterRegistry();
				TaggedRateLimiterMetrics.ofRateLimiterRegistry(rateLimiters).bindTo(meters);
				Gauge permits = meters.get("resilience4j.ratelimiter.available.permissions")
					.tag("name", "backend")
					.gauge();
				// read from Redis (0 while unknown)
				await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(permits.value()).isEqualTo(10));
				redis.pause();
				try {
					long start = System.nanoTime();
					for (int scrape = 0; scrape < 3; scrape++) {
						permits.value();
					}
					assertThat(Duration.ofNanos(System.nanoTime() - start)).as("three scrapes of a paused Redis")
						.isLessThan(Duration.ofMillis(200));
				}
				finally {
					redis.resume();
				}
			});
	}

	@Test
	void theNamedInstancesAreRedkitsAndTheOthersStayResilience4js() {
		this.runner
			.withPropertyValues("redkit.resilience4j.rate-limiters.backend.limit=api",
					"redkit.resilience4j.bulkheads.exports.key=tenant-a")
			.run((context) -> {
				RateLimiterRegistry rateLimiters = context.getBean(RateLimiterRegistry.class);
				assertThat(rateLimiters.rateLimiter("backend")).isInstanceOfSatisfying(RedkitRateLimiter.class,
						(limiter) -> assertThat(limiter.getKey()).isEqualTo("backend"));
				assertThat(rateLimiters.rateLimiter("other")).isNotInstanceOf(RedkitRateLimiter.class);
				assertThat(context.getBean(BulkheadRegistry.class).bulkhead("exports"))
					.isInstanceOfSatisfying(RedkitBulkhead.class, (bulkhead) -> {
						assertThat(bulkhead.getLimitName()).isEqualTo("exports");
						assertThat(bulkhead.getKey()).isEqualTo("tenant-a");
					});
			});
	}

	@Test
	void anUnknownRedkitLimitFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("redkit.resilience4j.rate-limiters.backend.limit=missing")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("redkit.resilience4j.rate-limiters.backend")
				.hasMessageContaining("redkit.rate-limit.limits.missing"));
		this.runner.withPropertyValues("redkit.resilience4j.bulkheads.reports.limit=missing")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("redkit.resilience4j.bulkheads.reports")
				.hasMessageContaining("redkit.concurrency-limit.limits.missing"));
	}

	@Test
	void aBlankKeyFailsStartUpNamingTheProperty() {
		this.runner
			.withPropertyValues("redkit.resilience4j.rate-limiters.backend.limit=api",
					"redkit.resilience4j.rate-limiters.backend.key= ")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("redkit.resilience4j.rate-limiters.backend.key must not be blank"));
	}

	@Test
	void rateLimitersNamedWhileRedkitsRateLimitsAreOffFailStartUp() {
		this.runner
			.withPropertyValues("redkit.resilience4j.rate-limiters.backend.limit=api",
					"redkit.rate-limit.enabled=false")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("redkit.rate-limit.enabled=false"));
	}

	@Test
	void turnedOffResilience4jKeepsItsOwnInstances() {
		this.runner
			.withPropertyValues("redkit.resilience4j.rate-limiters.backend.limit=api",
					"redkit.resilience4j.enabled=false")
			.run((context) -> assertThat(context.getBean(RateLimiterRegistry.class).rateLimiter("backend"))
				.isNotInstanceOf(RedkitRateLimiter.class));
	}

	@Test
	void withoutResilience4jsBulkheadOnlyTheRateLimitersAreWired() {
		this.runner.withClassLoader(new FilteredClassLoader("io.github.resilience4j.bulkhead"))
			.withPropertyValues("redkit.resilience4j.rate-limiters.backend.limit=api")
			.run((context) -> {
				assertThat(context).hasSingleBean(RateLimiterRegistryPostProcessor.class)
					.doesNotHaveBean(BulkheadRegistryPostProcessor.class);
				assertThat(context.getBean(RateLimiterRegistry.class).rateLimiter("backend"))
					.isInstanceOf(RedkitRateLimiter.class);
			});
	}

}
