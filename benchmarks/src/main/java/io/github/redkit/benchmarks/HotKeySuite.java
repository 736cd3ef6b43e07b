package io.github.redkit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.redkit.budget.Budgets;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.testsupport.RedisServer;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * One hot identifier that every call counts under (an API-wide limit), decided by four
 * instances of an application (four Spring contexts, each with its own connections), the
 * benchmark's threads spread over them: the raw one-window script per call (the floor of
 * one decision per call), Redkit deciding every call in Redis, and Redkit with local
 * allowances of 10, 50 and 200 permits a batch. The limit is high enough that every call
 * is allowed.
 */
final class HotKeySuite {

	static final int INSTANCES = 4;

	private static final long LIMIT = 1_000_000_000L;

	private HotKeySuite() {
	}

	static Suite create() {
		return new Suite("hot key, 4 instances",
				List.of(RawOnOneKey::new, (redis) -> new RedkitInstances(redis, 0),
						(redis) -> new RedkitInstances(redis, 10), (redis) -> new RedkitInstances(redis, 50),
						(redis) -> new RedkitInstances(redis, 200), (redis) -> new BudgetInstances(redis, 0),
						(redis) -> new BudgetInstances(redis, 50)));
	}

	/** The raw fixed-window script, one round trip per call, from four instances. */
	static final class RawOnOneKey implements Contender {

		private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

		private final List<StringRedisTemplate> templates = new ArrayList<>();

		private final String limit = Long.toString(LIMIT);

		RawOnOneKey(RedisServer redis) {
			for (int i = 0; i < INSTANCES; i++) {
				ConfigurableApplicationContext context = Clients.springContext(redis, Map.of());
				this.contexts.add(context);
				this.templates.add(context.getBean(StringRedisTemplate.class));
			}
		}

		@Override
		public String name() {
			return "raw EVALSHA per call, 1 fixed window (reference)";
		}

		@Override
		public void operate(int thread, long iteration) {
			long window = System.currentTimeMillis() / 1000;
			this.templates.get(thread % INSTANCES)
				.execute(RateLimitSuite.RawScript.FIXED_WINDOW, List.of("hot:" + window), this.limit, "1000");
		}

		@Override
		public void close() {
			this.contexts.forEach(ConfigurableApplicationContext::close);
		}

	}

	/** Redkit's budgets spending from one budget, with or without a local allowance. */
	static final class BudgetInstances implements Contender {

		private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

		private final List<Budgets> budgets = new ArrayList<>();

		private final int allowance;

		BudgetInstances(RedisServer redis, int allowance) {
			this.allowance = allowance;
			Map<String, Object> properties = (allowance > 0)
					? Map.of("redkit.budget.local-allowances.hot.size", allowance) : Map.of();
			for (int i = 0; i < INSTANCES; i++) {
				ConfigurableApplicationContext context = Clients.springContext(redis, properties);
				this.contexts.add(context);
				this.budgets.add(context.getBean(Budgets.class));
			}
			this.budgets.get(0).create("hot", Budgets.MAX_AMOUNT / 2, true);
		}

		@Override
		public String name() {
			return (this.allowance == 0) ? "Redkit budget, every spend in Redis"
					: "Redkit budget, local allowance of " + this.allowance;
		}

		@Override
		public void operate(int thread, long iteration) {
			if (!this.budgets.get(thread % INSTANCES).spend("hot", 1).applied()) {
				throw new IllegalStateException("unexpected refusal");
			}
		}

		@Override
		public void close() {
			this.contexts.forEach(ConfigurableApplicationContext::close);
		}

	}

	/** Redkit's bean on one sliding window, with or without a local allowance. */
	static final class RedkitInstances implements Contender {

		private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

		private final List<RateLimiter> limiters = new ArrayList<>();

		private final int allowance;

		RedkitInstances(RedisServer redis, int allowance) {
			this.allowance = allowance;
			Map<String, Object> properties = Map.of("redkit.rate-limit.limits.hot.windows[0].limit", LIMIT,
					"redkit.rate-limit.limits.hot.windows[0].period", "1s",
					"redkit.rate-limit.limits.hot.local-allowance.size", allowance);
			for (int i = 0; i < INSTANCES; i++) {
				ConfigurableApplicationContext context = Clients.springContext(redis, properties);
				this.contexts.add(context);
				this.limiters.add(context.getBean(RateLimiter.class));
			}
		}

		@Override
		public String name() {
			return (this.allowance == 0) ? "Redkit, every call decided in Redis"
					: "Redkit, local allowance of " + this.allowance;
		}

		@Override
		public void operate(int thread, long iteration) {
			if (!this.limiters.get(thread % INSTANCES).tryAcquire("hot", "api").allowed()) {
				throw new IllegalStateException("unexpected refusal");
			}
		}

		@Override
		public void close() {
			this.contexts.forEach(ConfigurableApplicationContext::close);
		}

	}

}
