package io.github.redkit.resilience;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.budget.BudgetAutoConfiguration;
import io.github.redkit.autoconfigure.idempotency.IdempotencyAutoConfiguration;
import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.autoconfigure.pubsub.RedkitPubSubAutoConfiguration;
import io.github.redkit.autoconfigure.queue.QueueAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.queue.QueueListener;
import io.github.redkit.testsupport.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.annotation.RedisListener;

/**
 * An application with every capability configured through Spring Boot's properties, a
 * queue listener and a channel listener, for the fault tests: short timeouts so that a
 * fault shows within a test's deadline.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
		RedkitAutoConfiguration.class, RateLimitAutoConfiguration.class, LockAutoConfiguration.class,
		BudgetAutoConfiguration.class, IdempotencyAutoConfiguration.class, QueueAutoConfiguration.class,
		RedkitPubSubAutoConfiguration.class })
class FaultsApplication {

	static final String QUEUE = "faults";

	static final String CHANNEL = "faults";

	static ConfigurableApplicationContext start(RedisServer redis) {
		return new SpringApplicationBuilder(FaultsApplication.class).web(WebApplicationType.NONE)
			.properties(redis.springProperties())
			.properties("spring.data.redis.timeout=1s", "redkit.key-prefix=faults", "redkit.lock.redis-timeout=1s",
					"redkit.budget.timeout=1s", "redkit.idempotency.timeout=1s", "redkit.rate-limit.timeout=300ms",
					"redkit.rate-limit.limits.api.windows[0].limit=1000000000",
					"redkit.rate-limit.limits.api.windows[0].period=1s", "redkit.queue.poll-timeout=200ms",
					"redkit.queue.queues." + QUEUE + ".visibility-timeout=5s", "spring.main.banner-mode=off")
			.run();
	}

	@Bean
	MeterRegistry meterRegistry() {
		return new SimpleMeterRegistry();
	}

	@Bean
	Received received() {
		return new Received();
	}

	/**
	 * What the listeners received.
	 */
	static class Received {

		final List<String> queued = new CopyOnWriteArrayList<>();

		final List<String> published = new CopyOnWriteArrayList<>();

		@QueueListener(queue = QUEUE)
		void onMessage(String message) {
			this.queued.add(message);
		}

		@RedisListener(topic = CHANNEL)
		void onPublished(String json) {
			this.published.add(json);
		}

	}

}
