package io.github.redkit.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import io.github.redkit.testsupport.LockRecords;
import io.github.redkit.autoconfigure.budget.BudgetAutoConfiguration;
import io.github.redkit.autoconfigure.idempotency.IdempotencyAutoConfiguration;
import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.autoconfigure.pubsub.RedkitPubSubAutoConfiguration;
import io.github.redkit.autoconfigure.queue.QueueAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.budget.Budgets;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.idempotency.StepClaim;
import io.github.redkit.idempotency.StepOutcome;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.pubsub.ControlState;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

import org.assertj.core.api.InstanceOfAssertFactories;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code redkit} endpoint's operations called on the bean, against a real Redis of
 * every selected topology.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.SCRIPTS)
class RedkitEndpointTests {

	@Parameter
	RedisTopology topology;

	private static final Duration LISTING_DEADLINE = Duration.ofSeconds(30);

	private ApplicationContextRunner runner;

	@BeforeEach
	void runner() {
		this.runner = EndpointApplications
			.runner("redkit-test-" + UUID.randomUUID(), this.topology, JacksonAutoConfiguration.class,
					EndpointAutoConfiguration.class, RateLimitAutoConfiguration.class, LockAutoConfiguration.class,
					QueueAutoConfiguration.class, BudgetAutoConfiguration.class, IdempotencyAutoConfiguration.class,
					RedkitPubSubAutoConfiguration.class)
			.withPropertyValues("redkit.queue.queues.jobs.max-attempts=1");
	}

	@Test
	void summaryNamesCapabilitiesPoliciesAndQueues() {
		this.runner
			.withPropertyValues("redkit.rate-limit.limits.api.windows[0].limit=5",
					"redkit.rate-limit.limits.api.windows[0].period=1m")
			.run((context) -> {
				Map<String, Object> summary = context.getBean(RedkitEndpoint.class).summary();
				assertThat(summary.get("capabilities")).asInstanceOf(InstanceOfAssertFactories.LIST)
					.containsExactly("rate-limit", "lock", "queue", "budget", "idempotency", "pubsub");
				assertThat(summary.get("access")).isEqualTo("read-only");
				assertThat(summary.get("sections")).asInstanceOf(InstanceOfAssertFactories.LIST)
					.containsExactly("ratelimits", "locks", "queues", "budgets", "steps", "control", "activity");
				assertThat(summary.get("rateLimits").toString()).contains("api").contains("limit=5");
				assertThat(summary.get("queues")).asInstanceOf(InstanceOfAssertFactories.ITERABLE)
					.containsExactly("jobs");
			});
	}

	/**
	 * Each algorithm's usage, read and reset, in one application (a limit named after
	 * each algorithm): the limits share nothing but the application, whose start was most
	 * of what one application per algorithm cost.
	 */
	@Test
	void rateLimitUsageIsReadWithoutConsumingAndReset() {
		List<String> algorithms = List.of("fixed-window", "sliding-window", "sliding-log", "token-bucket");
		List<String> properties = new ArrayList<>(List.of("redkit.rate-limit.failure-mode=deny"));
		for (String algorithm : algorithms) {
			String limit = "redkit.rate-limit.limits." + algorithm;
			properties.addAll(List.of(limit + ".algorithm=" + algorithm, limit + ".windows[0].limit=5",
					limit + ".windows[0].period=1m", limit + ".windows[1].limit=100", limit + ".windows[1].period=1h"));
		}
		this.runner.withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
			RedkitEndpoint endpoint = context.getBean(RedkitEndpoint.class);
			RateLimiter limiter = context.getBean(RateLimiter.class);
			// the first call of each algorithm's script may race the connection, the
			// script's load and class loading: with failure-mode deny it throws
			// instead of allowing uncounted, so each is made on a key of its own, not
			// on the one read
			for (String algorithm : algorithms) {
				await().ignoreExceptions().until(() -> limiter.tryAcquire(algorithm, "warm-up").allowed());
			}
			for (String algorithm : algorithms) {
				for (int i = 0; i < 3; i++) {
					assertThat(limiter.tryAcquire(algorithm, "user-1").allowed()).as(algorithm).isTrue();
				}
				for (int read = 0; read < 3; read++) {
					List<?> windows = (List<?>) usage(endpoint, algorithm, "user-1").get("windows");
					assertThat(windows).as(algorithm).hasSize(2);
					Map<?, ?> minute = (Map<?, ?>) windows.get(0);
					assertThat(minute.get("used")).as(algorithm).isEqualTo(3L);
					assertThat(minute.get("remaining")).as(algorithm).isEqualTo(2L);
					assertThat(Duration.parse((String) minute.get("resetsIn"))).as(algorithm)
						.isPositive()
						.isLessThanOrEqualTo(Duration.ofMinutes(2));
					assertThat(((Map<?, ?>) windows.get(1)).get("used")).as(algorithm).isEqualTo(3L);
				}
				assertThat(limiter.tryAcquire(algorithm, "user-1").remaining())
					.as("%s: reading consumed nothing", algorithm)
					.isEqualTo(1);
				assertThat(endpoint.delete("ratelimits", new String[] { algorithm, "user-1" }, null))
					.isEqualTo(Map.of("reset", true));
				assertThat(((Map<?, ?>) ((List<?>) usage(endpoint, algorithm, "user-1").get("windows")).get(0))
					.get("used")).as(algorithm).isEqualTo(0L);
			}
			assertThat(endpoint.detail("ratelimits", "unknown", new String[] { "user-1" }, null, null)).isNull();
		});
	}

	private static Map<?, ?> usage(RedkitEndpoint endpoint, String limit, String key) {
		return (Map<?, ?>) endpoint.detail("ratelimits", limit, new String[] { key }, null, null);
	}

	@Test
	void locksAreListedWithoutTheirTokenAndForceReleased() {
		this.runner.run((context) -> {
			RedkitEndpoint endpoint = context.getBean(RedkitEndpoint.class);
			LockHandle handle = context.getBean(DistributedLocks.class)
				.tryLock("order:1", Duration.ZERO, Duration.ofSeconds(30))
				.orElseThrow();
			List<?> locks = all(endpoint, "locks");
			assertThat(locks).hasSize(1);
			Map<?, ?> lock = (Map<?, ?>) locks.get(0);
			assertThat(lock.get("key")).isEqualTo("order:1");
			assertThat(lock.get("fencingToken")).isEqualTo(handle.fencingToken());
			assertThat(Duration.parse((String) lock.get("remainingLease"))).isPositive();
			assertThat(lock.get("holderInstance").toString()).isNotBlank().doesNotContain(":");
			assertThat(endpoint.delete("locks", new String[] { (String) lock.get("id") }, null))
				.isEqualTo(Map.of("released", true));
			assertThat(handle.extend(Duration.ofSeconds(5))).as("the holder lost it").isFalse();
			assertThat(all(endpoint, "locks")).isEmpty();
		});
	}

	// every page until the cursor comes back to 0: the shared server may hold many
	// other keys (other suites' keys, whatever their prefix), and a page is bounded in
	// time, so one page need not reach the end
	private static List<?> all(RedkitEndpoint endpoint, String section) {
		List<Object> all = new ArrayList<>();
		long deadline = System.nanoTime() + LISTING_DEADLINE.toNanos();
		String cursor = null;
		do {
			assertThat(System.nanoTime()).as("%s listed by %s (cursor %s)", section, LISTING_DEADLINE, cursor)
				.isLessThan(deadline);
			Map<?, ?> page = (Map<?, ?>) endpoint.section(section, cursor, null);
			all.addAll((List<?>) page.get(section.equals("locks") ? "locks" : "groups"));
			cursor = (String) page.get("cursor");
		}
		while (!"0".equals(cursor));
		return all;
	}

	@Test
	void forceReleaseByTheListedIdIsOneScriptThatTakesTheWaitersFlagAndAcceptsKeysWithSlashes() {
		this.runner.run((context) -> {
			RedkitEndpoint endpoint = context.getBean(RedkitEndpoint.class);
			StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
			String prefix = context.getBean(RedisKeyspace.class).prefix();
			DistributedLocks locks = context.getBean(DistributedLocks.class);
			LockHandle handle = locks.tryLock("tenant/7/order", Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
			// a waiter raises the flag that tells a release to publish
			assertThat(locks.tryLock("tenant/7/order", Duration.ofMillis(50), Duration.ofSeconds(30))).isEmpty();
			assertThat(LockRecords.waitedFor(redis, prefix + ":lock:{tenant%2F7%2Forder}")).as("flag raised").isTrue();
			List<?> listed = all(endpoint, "locks");
			assertThat(((Map<?, ?>) listed.get(0)).get("key")).isEqualTo("tenant/7/order");
			String id = (String) ((Map<?, ?>) listed.get(0)).get("id");
			assertThat(endpoint.delete("locks", new String[] { id }, null)).isEqualTo(Map.of("released", true));
			assertThat(handle.isHeld() && handle.extend(Duration.ofSeconds(5))).isFalse();
			assertThat(LockRecords.waitedFor(redis, prefix + ":lock:{tenant%2F7%2Forder}")).as("flag taken").isFalse();
			assertThat(endpoint.delete("locks", new String[] { id }, null)).isEqualTo(Map.of("released", false));
		});
	}

	@Test
	void locksArePagedAcrossEveryNode() {
		this.runner.withPropertyValues("redkit.endpoint.scan-count=50").run((context) -> {
			RedkitEndpoint endpoint = context.getBean(RedkitEndpoint.class);
			DistributedLocks locks = context.getBean(DistributedLocks.class);
			Set<String> held = new HashSet<>();
			for (int i = 0; i < 30; i++) {
				locks.tryLock("job-" + i, Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
				held.add("job-" + i);
			}
			Set<String> found = new HashSet<>();
			String cursor = null;
			int pages = 0;
			long deadline = System.nanoTime() + LISTING_DEADLINE.toNanos();
			do {
				assertThat(System.nanoTime()).as("listed by %s", LISTING_DEADLINE).isLessThan(deadline);
				Map<?, ?> page = (Map<?, ?>) endpoint.section("locks", cursor, 4);
				((List<?>) page.get("locks")).forEach((lock) -> found.add((String) ((Map<?, ?>) lock).get("key")));
				cursor = (String) page.get("cursor");
				assertThat(page.get("complete")).isEqualTo("0".equals(cursor));
				pages++;
			}
			while (!"0".equals(cursor));
			assertThat(found).isEqualTo(held);
			assertThat(pages).isGreaterThan(1);
		});
	}

	@Test
	void stepsShowStatesWithoutTokensOrResults() {
		this.runner.run((context) -> {
			IdempotentSteps steps = context.getBean(IdempotentSteps.class);
			assertThat(steps.claim("auction-1", "bid", Set.of(), null)).isEqualTo(StepOutcome.CLAIMED);
			steps.complete("auction-1", "bid", Map.of("price", "secret-42"));
			StepClaim notice = steps.claim("auction-1", "notice", Set.of("bid"), null, Duration.ofSeconds(30), null);
			Map<?, ?> answer = (Map<?, ?>) context.getBean(RedkitEndpoint.class).item("steps", "auction-1");
			assertThat(answer.get("operation")).isEqualTo("auction-1");
			Map<String, Map<?, ?>> byStep = new HashMap<>();
			((List<?>) answer.get("steps"))
				.forEach((step) -> byStep.put((String) ((Map<?, ?>) step).get("step"), (Map<?, ?>) step));
			assertThat(byStep.get("bid").get("state")).isEqualTo("completed");
			assertThat(byStep.get("notice").get("state")).isEqualTo("claimed");
			assertThat(Duration.parse((String) byStep.get("notice").get("leaseRemaining"))).isPositive()
				.isLessThanOrEqualTo(Duration.ofSeconds(30));
			assertThat(answer.toString()).doesNotContain(notice.token()).doesNotContain("secret-42");
			assertThat((List<?>) ((Map<?, ?>) context.getBean(RedkitEndpoint.class).item("steps", "none")).get("steps"))
				.isEmpty();
		});
	}

	@Test
	void stepResultsAreShownOnlyWhenConfigured() {
		this.runner.withPropertyValues("redkit.endpoint.show-payloads=true").run((context) -> {
			IdempotentSteps steps = context.getBean(IdempotentSteps.class);
			steps.claim("auction-2", "bid", Set.of(), null);
			steps.complete("auction-2", "bid", Map.of("price", "visible-42"));
			assertThat(context.getBean(RedkitEndpoint.class).item("steps", "auction-2")).asString()
				.contains("visible-42");
		});
	}

	@Test
	void controlGroupsShowValuesVersionsAndAcknowledgements() {
		this.runner.run((context) -> {
			ControlState state = context.getBean(ControlState.class);
			String group = "workers/" + UUID.randomUUID();
			long version = state.set(group, Map.of("throttle", "10"));
			state.acknowledge(group, "worker-1", version);
			state.set("other-" + UUID.randomUUID(), Map.of("run", "true"));
			List<?> groups = all(context.getBean(RedkitEndpoint.class), "control");
			assertThat(groups).hasSize(2);
			Map<?, ?> workers = groups.stream()
				.map(Map.class::cast)
				.filter((described) -> group.equals(described.get("group")))
				.findFirst()
				.orElseThrow();
			assertThat(workers.get("version")).isEqualTo(version);
			assertThat(workers.get("values")).isEqualTo(Map.of("throttle", "10"));
			assertThat(workers.get("acknowledgements")).isEqualTo(Map.of("worker-1", version));
		});
	}

	@Test
	void activityCountsDecisionsAcquisitionsAndMessagesSinceStart() {
		this.runner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("redkit.rate-limit.limits.api.windows[0].limit=2",
					"redkit.rate-limit.limits.api.windows[0].period=1m")
			.run((context) -> {
				RateLimiter limiter = context.getBean(RateLimiter.class);
				await().ignoreExceptions().until(() -> limiter.tryAcquire("api", "warm-up").allowed());
				for (int i = 0; i < 3; i++) {
					limiter.tryAcquire("api", "user-1");
				}
				context.getBean(DistributedLocks.class)
					.tryLock("report", "report-1", Duration.ZERO, Duration.ofSeconds(5));
				Map<?, ?> activity = (Map<?, ?>) context.getBean(RedkitEndpoint.class).section("activity", null, null);
				assertThat((Long) activity.get("at")).isPositive();
				Map<?, ?> api = (Map<?, ?>) ((Map<?, ?>) activity.get("rateLimits")).get("api");
				assertThat(api.get("denied")).isEqualTo(1L);
				assertThat((Long) api.get("allowed")).isGreaterThanOrEqualTo(3L);
				assertThat(api.get("failed")).isNotNull();
				assertThat(((Map<?, ?>) ((Map<?, ?>) activity.get("locks")).get("report")).get("acquired"))
					.isEqualTo(1L);
				assertThat(activity.get("queues")).isInstanceOf(Map.class);
				assertThat(activity.get("concurrency")).isInstanceOf(Map.class);
			});
	}

	@Test
	void activityIsEmptyWithoutARegistry() {
		this.runner.run((context) -> {
			Map<?, ?> activity = (Map<?, ?>) context.getBean(RedkitEndpoint.class).section("activity", null, null);
			assertThat(activity.get("rateLimits")).isEqualTo(Map.of());
			assertThat(activity.get("locks")).isEqualTo(Map.of());
		});
	}

	@Test
	void queuesShowCountsDeadLettersWithoutPayloadsReplayAndPurge() {
		this.runner.run((context) -> {
			Map<?, ?> stats = showsCountsDeadLettersReplayAndPurge(context);
			assertThat(stats.get("store")).isEqualTo("list");
		});
	}

	@Test
	void streamQueuesShowCountsConsumersDeadLettersWithoutPayloadsReplayAndPurge() {
		this.runner.withPropertyValues("redkit.queue.queues.jobs.store=stream").run((context) -> {
			Map<?, ?> stats = showsCountsDeadLettersReplayAndPurge(context);
			assertThat(stats.get("store")).isEqualTo("stream");
			assertThat(stats.get("group")).isEqualTo("redkit");
			assertThat((List<?>) stats.get("consumers")).singleElement()
				.asInstanceOf(InstanceOfAssertFactories.MAP)
				.containsEntry("pending", 0L)
				.containsKeys("name", "idle");
			QueueTemplate queues = context.getBean(QueueTemplate.class);
			queues.send("jobs", Map.of("n", 3));
			queues.receive("jobs", Map.class).orElseThrow();
			Map<?, ?> held = (Map<?, ?>) ((Map<?, ?>) context.getBean(RedkitEndpoint.class)
				.section("queues", null, null)).get("jobs");
			assertThat(held.get("inFlight")).isEqualTo(1L);
			assertThat((List<?>) held.get("consumers")).singleElement()
				.asInstanceOf(InstanceOfAssertFactories.MAP)
				.containsEntry("pending", 1L);
			assertThat(Duration.parse((String) held.get("oldestInFlightAge"))).isLessThan(Duration.ofMinutes(1));
		});
	}

	/**
	 * What the endpoint shows of queue {@code jobs} (one dead letter, one ready message),
	 * its dead letters' page, their replay and the purge.
	 */
	private static Map<?, ?> showsCountsDeadLettersReplayAndPurge(ApplicationContext context) {
		RedkitEndpoint endpoint = context.getBean(RedkitEndpoint.class);
		QueueTemplate queues = context.getBean(QueueTemplate.class);
		queues.send("jobs", Map.of("secret", "s3cr3t"));
		QueueMessage<Map> message = queues.receive("jobs", Map.class).orElseThrow();
		queues.fail(message, new IllegalStateException("boom"));
		queues.send("jobs", Map.of("n", 2));
		Map<?, ?> stats = (Map<?, ?>) ((Map<?, ?>) endpoint.section("queues", null, null)).get("jobs");
		assertThat(stats.get("depth")).isEqualTo(1L);
		assertThat(stats.get("inFlight")).isEqualTo(0L);
		assertThat(stats.get("deadLetters")).isEqualTo(1L);
		Map<?, ?> page = (Map<?, ?>) endpoint.detail("queues", "jobs", new String[] { "dead-letters" }, 0, 10);
		assertThat(page.toString()).contains("boom").doesNotContain("s3cr3t");
		assertThat((List<?>) ((Map<?, ?>) endpoint.detail("queues", "jobs", new String[] { "dead-letters" }, 1, 10))
			.get("deadLetters")).isEmpty();
		assertThat(endpoint.replay("queues", "jobs", "dead-letters", null, null)).isEqualTo(Map.of("replayed", 1L));
		assertThat(queues.size("jobs")).isEqualTo(2);
		endpoint.delete("queues", new String[] { "jobs" }, null);
		assertThat(queues.stats("jobs").ready()).isZero();
		// counted before the purge
		return stats;
	}

	@Test
	void payloadsAreShownOnlyWhenConfigured() {
		this.runner.withPropertyValues("redkit.endpoint.show-payloads=true").run((context) -> {
			QueueTemplate queues = context.getBean(QueueTemplate.class);
			queues.send("jobs", Map.of("secret", "visible"));
			queues.fail(queues.receive("jobs", Map.class).orElseThrow(), new IllegalStateException("boom"));
			assertThat(context.getBean(RedkitEndpoint.class)
				.detail("queues", "jobs", new String[] { "dead-letters" }, 0, 10)).asString().contains("visible");
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
