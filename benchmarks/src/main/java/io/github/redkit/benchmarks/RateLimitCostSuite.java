package io.github.redkit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.testsupport.RedisServer;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * The cost curve of a rate-limit decision: Redkit's RateLimiter bean deciding 1, 3 and 10
 * sliding windows for 1, 2 and 5 identifiers at once (all in one script on a standalone
 * Redis), over 1,000 keys per identifier. The limits are high enough that every call is
 * allowed, so each decision does its full work; the first contender (one window, one
 * identifier) is the reference. What a decision costs Redis should grow at most linearly
 * with windows × identifiers.
 */
final class RateLimitCostSuite {

	static final int[] WINDOWS = { 1, 3, 10 };

	static final int[] IDENTIFIERS = { 1, 2, 5 };

	private static final Duration[] PERIODS = { Duration.ofSeconds(1), Duration.ofMinutes(1), Duration.ofHours(1),
			Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30),
			Duration.ofMinutes(5), Duration.ofMinutes(10), Duration.ofMinutes(30) };

	private RateLimitCostSuite() {
	}

	static Suite create() {
		List<Function<RedisServer, Contender>> contenders = new ArrayList<>();
		for (int windows : WINDOWS) {
			for (int identifiers : IDENTIFIERS) {
				contenders.add((redis) -> new RedkitDecision(redis, windows, identifiers));
			}
		}
		return new Suite("rate-limit cost (windows × identifiers)", contenders);
	}

	static final class RedkitDecision implements Contender {

		private final ConfigurableApplicationContext context;

		private final RateLimiter limiter;

		private final RateLimitPolicy policy;

		private final int windows;

		private final int identifiers;

		RedkitDecision(RedisServer redis, int windows, int identifiers) {
			// a loaded machine must not turn a slow answer into an allowed call that
			// skips
			// Redis (the failure mode and its cooldown): that would flatter the curve
			this.context = Clients.springContext(redis, Map.of("redkit.rate-limit.timeout", "30s",
					"redkit.rate-limit.failure-mode", "deny", "redkit.rate-limit.failure-cooldown", "0s"));
			this.limiter = this.context.getBean(RateLimiter.class);
			List<RateLimitWindow> policyWindows = new ArrayList<>();
			for (int i = 0; i < windows; i++) {
				policyWindows.add(RateLimitWindow.of(RateLimitSuite.LIMIT, PERIODS[i]));
			}
			this.policy = new RateLimitPolicy(RateLimitAlgorithm.SLIDING_WINDOW, policyWindows);
			this.windows = windows;
			this.identifiers = identifiers;
		}

		@Override
		public String name() {
			return "Redkit bean, " + this.windows + " window" + ((this.windows > 1) ? "s" : "") + " × "
					+ this.identifiers + " identifier" + ((this.identifiers > 1) ? "s" : "");
		}

		@Override
		public void operate(int thread, long iteration) {
			String key = Keys.of(thread, iteration);
			List<String> keys = new ArrayList<>(this.identifiers);
			for (int i = 0; i < this.identifiers; i++) {
				// a tenant, a user, an address...: distinct identifiers of one caller
				keys.add(key + ":" + i);
			}
			if (!this.limiter.tryAcquire("cost", this.policy, keys, 1).allowed()) {
				throw new IllegalStateException("unexpected refusal");
			}
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

}
