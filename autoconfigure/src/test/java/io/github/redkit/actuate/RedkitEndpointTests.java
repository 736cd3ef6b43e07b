package io.github.redkit.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.actuate.RedkitEndpointAutoConfiguration;
import io.github.redkit.autoconfigure.budget.BudgetAutoConfiguration;
import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.autoconfigure.queue.QueueAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.budget.Budgets;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.test.RedisServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import org.assertj.core.api.InstanceOfAssertFactories;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code redkit} endpoint's operations called on the bean, against a real Redis.
 */
class RedkitEndpointTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				RateLimitAutoConfiguration.class, LockAutoConfiguration.class, QueueAutoConfiguration.class,
				BudgetAutoConfiguration.class, RedkitEndpointAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withPropertyValues("redkit.key-prefix=redkit-test-" + UUID.randomUUID(),
				"management.endpoints.web.exposure.include=redkit", "redkit.queue.queues.jobs.max-attempts=1");

	@Test
	void summaryNamesCapabilitiesPoliciesAndQueues() {
		this.runner
			.withPropertyValues("redkit.rate-limit.limits.api.windows[0].limit=5",
					"redkit.rate-limit.limits.api.windows[0].period=1m")
			.run((context) -> {
				Map<String, Object> summary = context.getBean(RedkitEndpoint.class).summary();
				assertThat(summary.get("capabilities")).asInstanceOf(InstanceOfAssertFactories.LIST)
					.containsExactly("rate-limit", "lock", "queue", "budget");
				assertThat(summary.get("rateLimits").toString()).contains("api").contains("limit=5");
				assertThat(summary.get("queues")).asInstanceOf(InstanceOfAssertFactories.ITERABLE)
					.containsExactly("jobs");
			});
	}

	@ParameterizedTest
	@ValueSource(strings = { "fixed-window", "sliding-window", "sliding-log", "token-bucket" })
	void rateLimitUsageIsReadWithoutConsumingAndReset(String algorithm) {
		this.runner
			.withPropertyValues("redkit.rate-limit.limits.api.algorithm=" + algorithm,
					"redkit.rate-limit.failure-mode=deny", "redkit.rate-limit.limits.api.windows[0].limit=5",
					"redkit.rate-limit.limits.api.windows[0].period=1m",
					"redkit.rate-limit.limits.api.windows[1].limit=100",
					"redkit.rate-limit.limits.api.windows[1].period=1h")
			.run((context) -> {
				RedkitEndpoint endpoint = context.getBean(RedkitEndpoint.class);
				RateLimiter limiter = context.getBean(RateLimiter.class);
				// the first call may race the connection: with failure-mode deny it
				// throws
				// instead of allowing uncounted
				await().ignoreExceptions().until(() -> limiter.tryAcquire("api", "warm-up").allowed());
				for (int i = 0; i < 3; i++) {
					assertThat(limiter.tryAcquire("api", "user-1").allowed()).isTrue();
				}
				for (int read = 0; read < 3; read++) {
					List<?> windows = (List<?>) usage(endpoint, "user-1").get("windows");
					assertThat(windows).hasSize(2);
					Map<?, ?> minute = (Map<?, ?>) windows.get(0);
					assertThat(minute.get("used")).as(algorithm).isEqualTo(3L);
					assertThat(minute.get("remaining")).isEqualTo(2L);
					assertThat(Duration.parse((String) minute.get("resetsIn"))).isPositive()
						.isLessThanOrEqualTo(Duration.ofMinutes(2));
					assertThat(((Map<?, ?>) windows.get(1)).get("used")).isEqualTo(3L);
				}
				assertThat(limiter.tryAcquire("api", "user-1").remaining()).as("reading consumed nothing").isEqualTo(1);
				assertThat(endpoint.reset("ratelimits", "api", "user-1", null)).isEqualTo(Map.of("reset", true));
				assertThat(((Map<?, ?>) ((List<?>) usage(endpoint, "user-1").get("windows")).get(0)).get("used"))
					.isEqualTo(0L);
				assertThat(endpoint.detail("ratelimits", "unknown", "user-1", null, null)).isNull();
			});
	}

	private static Map<?, ?> usage(RedkitEndpoint endpoint, String key) {
		return (Map<?, ?>) endpoint.detail("ratelimits", "api", key, null, null);
	}

	@Test
	void locksAreListedWithoutTheirTokenAndForceReleased() {
		this.runner.run((context) -> {
			RedkitEndpoint endpoint = context.getBean(RedkitEndpoint.class);
			LockHandle handle = context.getBean(DistributedLocks.class)
				.tryLock("order:1", Duration.ZERO, Duration.ofSeconds(30))
				.orElseThrow();
			Map<?, ?> page = (Map<?, ?>) endpoint.section("locks", null, null);
			assertThat(page.get("cursor")).isEqualTo("0");
			List<?> locks = (List<?>) page.get("locks");
			assertThat(locks).hasSize(1);
			Map<?, ?> lock = (Map<?, ?>) locks.get(0);
			assertThat(lock.get("key")).isEqualTo("order:1");
			assertThat(lock.get("fencingToken")).isEqualTo(handle.fencingToken());
			assertThat(Duration.parse((String) lock.get("remainingLease"))).isPositive();
			assertThat(lock.get("holderInstance").toString()).isNotBlank().doesNotContain(":");
			assertThat(endpoint.delete("locks", "order:1", null)).isEqualTo(Map.of("released", true));
			assertThat(handle.extend(Duration.ofSeconds(5))).as("the holder lost it").isFalse();
			assertThat((List<?>) ((Map<?, ?>) endpoint.section("locks", null, null)).get("locks")).isEmpty();
		});
	}

	@Test
	void queuesShowCountsDeadLettersWithoutPayloadsReplayAndPurge() {
		this.runner.run((context) -> {
			RedkitEndpoint endpoint = context.getBean(RedkitEndpoint.class);
			QueueTemplate queues = context.getBean(QueueTemplate.class);
			queues.send("jobs", Map.of("secret", "s3cr3t"));
			QueueMessage<Map> message = queues.receive("jobs", Map.class).orElseThrow();
			queues.fail(message, new IllegalStateException("boom"));
			queues.send("jobs", Map.of("n", 2));
			Map<?, ?> stats = (Map<?, ?>) ((Map<?, ?>) endpoint.section("queues", null, null)).get("jobs");
			assertThat(stats.get("depth")).isEqualTo(1L);
			assertThat(stats.get("deadLetters")).isEqualTo(1L);
			Map<?, ?> page = (Map<?, ?>) endpoint.detail("queues", "jobs", "dead-letters", 0, 10);
			assertThat(page.toString()).contains("boom").doesNotContain("s3cr3t");
			assertThat(
					(List<?>) ((Map<?, ?>) endpoint.detail("queues", "jobs", "dead-letters", 1, 10)).get("deadLetters"))
				.isEmpty();
			assertThat(endpoint.replay("queues", "jobs", "dead-letters", null, null)).isEqualTo(Map.of("replayed", 1L));
			assertThat(queues.size("jobs")).isEqualTo(2);
			endpoint.delete("queues", "jobs", null);
			assertThat(queues.stats("jobs").ready()).isZero();
		});
	}

	@Test
	void payloadsAreShownOnlyWhenConfigured() {
		this.runner.withPropertyValues("redkit.endpoint.show-payloads=true").run((context) -> {
			QueueTemplate queues = context.getBean(QueueTemplate.class);
			queues.send("jobs", Map.of("secret", "visible"));
			queues.fail(queues.receive("jobs", Map.class).orElseThrow(), new IllegalStateException("boom"));
			assertThat(context.getBean(RedkitEndpoint.class).detail("queues", "jobs", "dead-letters", 0, 10)).asString()
				.contains("visible");
		});
	}

	@Test
	void budgetRemaining() {
		this.runner.run((context) -> {
			context.getBean(Budgets.class).create("campaign-1", 500);
			assertThat(context.getBean(RedkitEndpoint.class).item("budgets", "campaign-1"))
				.isEqualTo(Map.of("budget", "campaign-1", "remaining", 500L));
			assertThat(context.getBean(RedkitEndpoint.class).item("budgets", "missing")).isNull();
		});
	}

}
