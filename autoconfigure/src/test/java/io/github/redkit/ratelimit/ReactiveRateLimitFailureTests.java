package io.github.redkit.ratelimit;

import java.time.Duration;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.testsupport.NonBlockingThreads;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The reactive face applies the same failure modes, within the same timeout and with the
 * same meters, as the blocking one when Redis hangs, without blocking a thread.
 */
@Tag("tests-apart")
class ReactiveRateLimitFailureTests {

	@PrivateRedis
	private static RedisServer redis;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				RateLimitAutoConfiguration.class))
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
		.withPropertyValues("redkit.reactive.enabled=true", "redkit.rate-limit.timeout=200ms",
				"redkit.rate-limit.failure-cooldown=300ms", "redkit.rate-limit.limits.api.windows[0].limit=2",
				"redkit.rate-limit.limits.api.windows[0].period=1h", "spring.data.redis.timeout=5s");

	@BeforeAll
	static void startRedis() {
		NonBlockingThreads.watch();
	}

	private static double count(MeterRegistry registry, String outcome) {
		return registry.counter("redkit.ratelimit.decisions", "limit", "api", "outcome", outcome).count();
	}

	/**
	 * The first connection may take longer than the short timeout under load: it is made
	 * first without it (the runner sends on the factory's shared connection), so that the
	 * warm-up decisions do not time out again and again while it is made.
	 */
	private static void connected(ApplicationContext context, ReactiveRateLimiter limiter) {
		try (RedisConnection connection = context.getBean(RedisConnectionFactory.class).getConnection()) {
			connection.ping();
		}
		await().atMost(Duration.ofSeconds(10))
			.ignoreExceptions()
			.until(() -> limiter.tryAcquire("api", "warm-up")
				.subscribeOn(Schedulers.parallel())
				.block()
				.remaining() >= 0);
	}

	@Test
	void denyModeErrorsWithinTheTimeoutWhenRedisHangs() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("redkit.rate-limit.failure-mode=deny")
			.run((context) -> {
				ReactiveRateLimiter limiter = context.getBean(ReactiveRateLimiter.class);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				connected(context, limiter);
				// the warm-up's decisions may have failed on a loaded machine: count from
				// here
				double before = count(registry, "failed-closed");
				redis.pause();
				try {
					StepVerifier.create(limiter.tryAcquire("api", "hang-deny").subscribeOn(Schedulers.parallel()))
						.expectErrorSatisfies(
								(ex) -> assertThat(ex).isInstanceOf(RateLimiterUnavailableException.class))
						.verify(Duration.ofSeconds(2));
				}
				finally {
					redis.resume();
				}
				assertThat(count(registry, "failed-closed") - before).isEqualTo(1);
			});
	}

	@Test
	void allowModeLetsTheCallThroughWithinTheTimeoutWhenRedisHangs() {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			ReactiveRateLimiter limiter = context.getBean(ReactiveRateLimiter.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			connected(context, limiter);
			double before = count(registry, "failed-open");
			redis.pause();
			try {
				StepVerifier.create(limiter.tryAcquire("api", "hang-allow").subscribeOn(Schedulers.parallel()))
					.assertNext((decision) -> {
						assertThat(decision.allowed()).isTrue();
						assertThat(decision.remaining()).isEqualTo(-1);
					})
					.expectComplete()
					.verify(Duration.ofSeconds(2));
			}
			finally {
				redis.resume();
			}
			assertThat(count(registry, "failed-open") - before).isEqualTo(1);
		});
	}

}
