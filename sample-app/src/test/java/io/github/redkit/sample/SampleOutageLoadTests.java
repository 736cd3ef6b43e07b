package io.github.redkit.sample;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitDecisionListener;
import io.github.redkit.ratelimit.RateLimited;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code redkit.rate-limit.failure-mode=local} against a load generator we did not write:
 * {@code wrk} calls a limit of 20 a second from 8 connections while the test stops Redis
 * and starts it again (empty). The application is told it is one of 2 instances, so while
 * Redis is away it may let through 10 in any second, and it must not let more: every call
 * decided locally is placed on the instance's clock (its decision's {@code decidedAt})
 * and every interval of one second is checked; before and after, Redis decides (no more
 * than 20 in any second on Redis' clock).
 */
class SampleOutageLoadTests {

	private static final int LIMIT = 20;

	private static final int INSTANCES = 2;

	private static final long PERIOD_MILLIS = 1_000;

	private static final int CONNECTIONS = 8;

	@BeforeEach
	void needsWrk() {
		// before the test's server starts
		Wrk.assumeInstalled();
	}

	@Test
	void wrkThroughARestartedRedisGetsAtMostTheLocalShareIntoAnySecondWhileRedisIsAway(@PrivateRedis RedisServer redis)
			throws Exception {
		try (SampleClient app = SampleClient.on(redis, OutageDecisions.class, "--redkit.rate-limit.failure-mode=local",
				"--redkit.rate-limit.local.expected-instances=" + INSTANCES, "--redkit.rate-limit.timeout=200ms",
				"--redkit.rate-limit.failure-cooldown=300ms",
				"--redkit.rate-limit.limits.outage.windows[0].limit=" + LIMIT,
				"--redkit.rate-limit.limits.outage.windows[0].period=1s")) {
			OutageDecisions decisions = app.bean(OutageDecisions.class);
			assertThat(app.get("/load/outage").statusCode()).isEqualTo(200);
			// the load lasts until the phases are over (stopped below); a minute is the
			// allowance of a loaded machine, on which a fixed 14 s ended before Redis was
			// back
			Wrk load = Wrk.start("outage.lua", app.base() + "/load/outage", CONNECTIONS, Duration.ofSeconds(60),
					Map.of());
			Wrk.Totals totals;
			try (load) {
				await().atMost(Duration.ofSeconds(10)).until(() -> decisions.shared().size() >= 2 * LIMIT);
				redis.stop();
				try {
					await().atMost(Duration.ofSeconds(20))
						.until(() -> span(decisions.local()) >= 3 * PERIOD_MILLIS * 1_000_000);
				}
				finally {
					redis.start();
				}
				int sharedBefore = decisions.shared().size();
				await().atMost(Duration.ofSeconds(30)).until(() -> decisions.shared().size() >= sharedBefore + LIMIT);
				// the phases are over: more load would only keep both cores busy
				totals = load.stop();
			}
			List<Long> local = decisions.local();
			List<Long> shared = decisions.shared();
			// the local clock in nanoseconds: no rounding can move two calls into one
			// second
			int localBusiest = BusiestPeriod.of(local, PERIOD_MILLIS * 1_000_000);
			int sharedBusiest = BusiestPeriod.of(shared, PERIOD_MILLIS);
			System.out.printf(
					"Local failure mode through wrk (limit %d per second, %d instances, %d connections):"
							+ " %d requests, %d refused; while Redis was away %d allowed over %d ms, %d in the busiest"
							+ " second (bound %d); Redis decided %d allowed, %d in its busiest second%n",
					LIMIT, INSTANCES, CONNECTIONS, totals.requests(), totals.refused(), local.size(),
					span(local) / 1_000_000, localBusiest, LIMIT / INSTANCES, shared.size(), sharedBusiest);
			assertThat(localBusiest).as("allowed locally in one second: %s", local)
				.isLessThanOrEqualTo(LIMIT / INSTANCES);
			// served, not starved: the local share came through in every second of the
			// outage
			assertThat(local).hasSizeGreaterThanOrEqualTo(3 * LIMIT / INSTANCES);
			assertThat(sharedBusiest).as("allowed by Redis in one second").isLessThanOrEqualTo(LIMIT);
			assertThat(totals.refused()).isPositive();
		}
	}

	private static long span(List<Long> sorted) {
		return sorted.isEmpty() ? 0 : sorted.get(sorted.size() - 1) - sorted.get(0);
	}

	/**
	 * The endpoint under load and what its decisions were (a source of the application,
	 * so not a scanned component).
	 */
	static class OutageDecisions {

		private final List<RateLimitDecision> allowed = new CopyOnWriteArrayList<>();

		@Bean
		OutageController outageController() {
			return new OutageController();
		}

		@Bean
		RateLimitDecisionListener outageDecisions() {
			return (limitName, policy, decision) -> {
				if (limitName.equals("outage") && decision.decidedAt() != null) {
					this.allowed.add(decision);
				}
			};
		}

		/** When each call allowed locally was decided, in nanoseconds. */
		List<Long> local() {
			return times(true);
		}

		/**
		 * When Redis decided each call it allowed, in milliseconds (its clock's
		 * precision).
		 */
		List<Long> shared() {
			return times(false);
		}

		private List<Long> times(boolean local) {
			List<Long> times = new ArrayList<>();
			for (RateLimitDecision decision : this.allowed) {
				Instant decidedAt = decision.decidedAt();
				if (decision.local() == local && decidedAt != null) {
					times.add(local ? decidedAt.getEpochSecond() * 1_000_000_000L + decidedAt.getNano()
							: decidedAt.toEpochMilli());
				}
			}
			times.sort(null);
			return times;
		}

	}

	@RestController
	static class OutageController {

		@GetMapping("/load/outage")
		@RateLimited("outage")
		String outage() {
			return "ok";
		}

	}

}
