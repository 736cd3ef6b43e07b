package io.github.redkit.benchmarks;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.redkit.budget.Budgets;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.region.RegionalBudgets;
import io.github.redkit.region.RegionalCounters;
import io.github.redkit.testsupport.RedisServer;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Several regions: what deciding locally and queueing for the peers costs one region's
 * Redis (no peer runs, so only the decision and its outbox entry are measured), beside
 * the single-region operation it extends. The reference is a raw {@code HINCRBY}: a
 * counter with nothing queued. There is no open-source peer library to compare with.
 */
final class RegionSuite {

	private static final long LARGE = Budgets.MAX_AMOUNT;

	private RegionSuite() {
	}

	static Suite create() {
		return new Suite(
				"several regions (one region's Redis, outbox included)", List.of(
						redis -> new Operation(redis, "Spring Data Redis HINCRBY (nothing queued)",
								(context, thread, op) -> context.template.opsForHash()
									.increment(context.key, "p:eu", 1)),
						redis -> new Operation(redis, "Redkit RegionalCounters.increment",
								(context, thread, op) -> context.bean(RegionalCounters.class)
									.increment(context.key, 1)),
						redis -> new Operation(
								redis, "Redkit Budgets.spend (one region)",
								(context, thread, op) -> context.bean(Budgets.class).spend(context.key, 1)),
						redis -> new Operation(
								redis, "Redkit RegionalBudgets.spend, shared",
								(context, thread, op) -> context.bean(RegionalBudgets.class)
									.spend(context.key + ":shared", 1)),
						redis -> new Operation(redis, "Redkit RegionalBudgets.spend, shared, with an operation id",
								(context, thread, op) -> context.bean(RegionalBudgets.class)
									.spend(context.key + ":shared", 1, op)),
						redis -> new Operation(redis, "Redkit RegionalBudgets.spend, allotted",
								(context, thread, op) -> context.bean(RegionalBudgets.class)
									.spend(context.key + ":allotted", 1)),
						redis -> new Operation(redis, "Redkit RateLimiter, sliding window (one region)",
								(context, thread, op) -> context.bean(RateLimiter.class).tryAcquire("local", thread)),
						redis -> new Operation(redis, "Redkit RateLimiter, sliding window marked global", (context,
								thread, op) -> context.bean(RateLimiter.class).tryAcquire("global", thread))));
	}

	/** What a contender does once. */
	@FunctionalInterface
	interface Step {

		void run(Operation context, String thread, String operationId);

	}

	/**
	 * One operation on an application context of region {@code eu} without peers.
	 */
	static final class Operation implements Contender {

		private final ConfigurableApplicationContext context;

		private final StringRedisTemplate template;

		private final String key = "bench:" + UUID.randomUUID();

		private final String name;

		private final Step operation;

		Operation(RedisServer redis, String name, Step operation) {
			this.context = Clients.springContext(redis,
					Map.of("redkit.regions.local", "eu", "redkit.rate-limit.limits.local.windows[0].limit", LARGE,
							"redkit.rate-limit.limits.local.windows[0].period", "1m",
							"redkit.rate-limit.limits.global.windows[0].limit", LARGE,
							"redkit.rate-limit.limits.global.windows[0].period", "1m",
							"redkit.rate-limit.limits.global.global", true));
			this.template = this.context.getBean(StringRedisTemplate.class);
			this.name = name;
			this.operation = operation;
			bean(Budgets.class).create(this.key, LARGE);
			bean(RegionalBudgets.class).create(this.key + ":shared", LARGE);
			bean(RegionalBudgets.class).allot(this.key + ":allotted", Map.of("eu", LARGE));
		}

		<T> T bean(Class<T> type) {
			return this.context.getBean(type);
		}

		@Override
		public String name() {
			return this.name;
		}

		@Override
		public void operate(int thread, long iteration) {
			// an operation id per call; the rate limits count per thread
			this.operation.run(this, "t" + thread, thread + ":" + iteration);
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

}
