package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.List;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With a connection pool and no shared connection, a rate-limit decision whose caller
 * gave up while Redis was frozen is never sent once Redis answers again: the decision's
 * timeout is set on the call the pool hand-off holds, not only on what the limiter
 * derives from it.
 */
class RateLimitPoolHandOffTests {

	private static final int MAX_ACTIVE = 2;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				RateLimitAutoConfiguration.class))
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
		.withBean(UnsharedConnections.class, UnsharedConnections::new)
		.withPropertyValues("redkit.reactive.enabled=true", "redkit.rate-limit.timeout=300ms",
				"redkit.rate-limit.failure-cooldown=0s", "redkit.rate-limit.failure-mode=allow",
				"redkit.rate-limit.limits.api.windows[0].limit=1000000",
				"redkit.rate-limit.limits.api.windows[0].period=1h", "spring.data.redis.timeout=10s",
				"spring.data.redis.lettuce.pool.enabled=true",
				"spring.data.redis.lettuce.pool.max-active=" + MAX_ACTIVE);

	@Test
	void decisionsWhoseCallersGaveUpWhileRedisWasFrozenAreNeverSent(@PrivateRedis RedisServer redis) {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			ReactiveRateLimiter limiter = context.getBean(ReactiveRateLimiter.class);
			// every pooled connection made before the freeze
			await().atMost(Duration.ofSeconds(10))
				.until(() -> decide(limiter, 10, "warm-up").stream().allMatch((allowed) -> allowed));
			CommandStats before = redis.commandStats();
			redis.pause();
			List<Boolean> frozen;
			try {
				frozen = decide(limiter, 500, "frozen");
			}
			finally {
				redis.resume();
			}
			// failed open: allowed without Redis
			assertThat(frozen).hasSize(500).containsOnly(true);
			assertThat(decide(limiter, 20, "thawed")).hasSize(20);
			CommandStats used = redis.commandStats().since(before);
			long scripts = used.calls("evalsha") + used.calls("eval");
			// the 20 after the thaw, and at most the ones already on a connection
			assertThat(scripts).as("scripts run after the freeze: %s", used).isBetween(20L, 20L + MAX_ACTIVE);
		});
	}

	/**
	 * Every call borrows from the pool: a shared connection would write the calls to its
	 * socket at once, where no caller can take them back.
	 */
	static final class UnsharedConnections implements BeanPostProcessor {

		@Override
		public Object postProcessBeforeInitialization(Object bean, String beanName) {
			if (bean instanceof LettuceConnectionFactory factory) {
				factory.setShareNativeConnection(false);
			}
			return bean;
		}

	}

	private static List<Boolean> decide(ReactiveRateLimiter limiter, int calls, String key) {
		return Flux.range(0, calls)
			.flatMap((i) -> limiter.tryAcquire("api", List.of(key + i), 1)
				.subscribeOn(Schedulers.parallel())
				.map(RateLimitDecision::allowed), calls)
			.collectList()
			.block(Duration.ofSeconds(30));
	}

}
