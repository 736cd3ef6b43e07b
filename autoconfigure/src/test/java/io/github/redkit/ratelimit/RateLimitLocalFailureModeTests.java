package io.github.redkit.ratelimit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.ratelimit.actuate.LocalRateLimitHealthIndicator;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Failure mode {@code local} on a real Redis that is frozen ({@code SIGSTOP}) or stopped
 * and started again: while it is away the bean and its reactive face decide on this
 * instance with each window's limit divided by the instances, mark the decisions, count
 * them and say so in the health details; the number let through stays within the local
 * bound over every interval of one period; when Redis answers again the shared counters
 * decide.
 */
class RateLimitLocalFailureModeTests {

	@PrivateRedis
	private static RedisServer redis;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				RateLimitAutoConfiguration.class))
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
		.withPropertyValues("redkit.rate-limit.timeout=200ms", "redkit.rate-limit.failure-cooldown=300ms",
				"redkit.rate-limit.failure-mode=local", "redkit.rate-limit.local.expected-instances=2",
				"redkit.rate-limit.limits.api.windows[0].limit=4", "redkit.rate-limit.limits.api.windows[0].period=1h",
				"redkit.rate-limit.limits.busy.windows[0].limit=10",
				"redkit.rate-limit.limits.busy.windows[0].period=500ms", "spring.data.redis.timeout=5s",
				"redkit.reactive.enabled=true");

	@Test
	void whileRedisIsFrozenTheBeanAndItsReactiveFaceDecideLocallyAndTheSharedCountersTakeOverAfter() {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiter.class);
			ReactiveRateLimiter reactive = context.getBean(ReactiveRateLimiter.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			LocalRateLimitHealthIndicator health = context.getBean(LocalRateLimitHealthIndicator.class);
			// connected in the background: until then the first calls are local too
			await().atMost(Duration.ofSeconds(10))
				.until(() -> !limiter.tryAcquire("api", "warm-up-" + System.nanoTime()).local());
			// the warm-up's local calls are counted too (more of them on a loaded
			// machine)
			double localAllowedBefore = outcome(registry, "local-allowed");
			double localDeniedBefore = outcome(registry, "local-denied");
			RateLimitDecision shared = limiter.tryAcquire("api", "frozen");
			assertThat(shared.allowed()).isTrue();
			assertThat(shared.local()).isFalse();
			assertThat(health.health(true).getDetails()).containsEntry("degraded", false);
			Instant frozenAt = Instant.now();
			redis.pause();
			try {
				// 4 an hour on 2 instances: 2 an hour here, whatever Redis counted before
				RateLimitDecision first = limiter.tryAcquire("api", "frozen");
				assertThat(first.allowed()).isTrue();
				assertThat(first.local()).isTrue();
				assertThat(first.remaining()).isEqualTo(1);
				assertThat(first.policy().windows()).extracting(RateLimitWindow::limit).containsExactly(2L);
				assertThat(first.decidedAt()).isAfterOrEqualTo(frozenAt);
				assertThat(limiter.tryAcquire("api", "frozen").allowed()).isTrue();
				RateLimitDecision refused = limiter.tryAcquire("api", "frozen");
				assertThat(refused.allowed()).isFalse();
				assertThat(refused.local()).isTrue();
				assertThat(refused.retryAfter()).isPositive();
				RateLimitDecision reactiveFirst = reactive.tryAcquire("api", List.of("frozen-reactive"), 2).block();
				assertThat(reactiveFirst.allowed()).isTrue();
				assertThat(reactiveFirst.local()).isTrue();
				assertThat(reactive.tryAcquire("api", List.of("frozen-reactive"), 1).block().allowed()).isFalse();
				assertThat(outcome(registry, "local-allowed") - localAllowedBefore).isEqualTo(3);
				assertThat(outcome(registry, "local-denied") - localDeniedBefore).isEqualTo(2);
				// a reservation decided here is settled here: its unused permit comes
				// back
				RateLimitReservation reserved = limiter.reserve("api", List.of("frozen-settled"), 2);
				assertThat(reserved.decision().local()).isTrue();
				assertThat(limiter.tryAcquire("api", "frozen-settled").allowed()).isFalse();
				assertThat(reserved.settle(1)).isTrue();
				assertThat(limiter.tryAcquire("api", "frozen-settled").allowed()).isTrue();
				assertThat(registry.get("redkit.ratelimit.settlements").tag("outcome", "given-back").counter().count())
					.isEqualTo(1);
				Map<String, Object> details = health.health(true).getDetails();
				assertThat(details).containsEntry("degraded", true)
					.containsEntry("instances", 2)
					.containsEntry("instancesSource", "configured");
				assertThat(Instant.parse((String) details.get("degradedSince"))).isAfterOrEqualTo(frozenAt);
			}
			finally {
				redis.resume();
			}
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(100))
				.untilAsserted(() -> assertThat(limiter.tryAcquire("api", "back").local()).isFalse());
			assertThat(health.health(true).getDetails()).containsEntry("degraded", false);
			assertThat(reactive.tryAcquire("api", List.of("back-reactive"), 1).block().local()).isFalse();
		});
	}

	@Test
	void aContinuousClientThroughAStoppedAndRestartedRedisGetsAtMostTheLocalShareInAnyPeriod() {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiter.class);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> !limiter.tryAcquire("busy", "warm-up-" + System.nanoTime()).local());
			ConcurrentLinkedQueue<RateLimitDecision> allowed = new ConcurrentLinkedQueue<>();
			AtomicBoolean running = new AtomicBoolean(true);
			int threads = 3;
			CountDownLatch done = new CountDownLatch(threads);
			for (int t = 0; t < threads; t++) {
				Thread client = new Thread(() -> {
					try {
						while (running.get()) {
							RateLimitDecision decision = limiter.tryAcquire("busy", "client");
							if (decision.allowed()) {
								allowed.add(decision);
							}
						}
					}
					finally {
						done.countDown();
					}
				});
				client.setDaemon(true);
				client.start();
			}
			try {
				await().atMost(Duration.ofSeconds(10)).until(() -> allowed.size() >= 20);
				redis.stop();
				try {
					// 1.5 s of local decisions: three periods, the middle one whole (the
					// clients spin on local decisions all along: four cost a third more)
					await().atMost(Duration.ofSeconds(20))
						.until(() -> span(localTimes(allowed)) >= Duration.ofMillis(1500).toNanos());
				}
				finally {
					redis.start();
				}
				int before = allowed.size();
				await().atMost(Duration.ofSeconds(30))
					.until(() -> allowed.stream().skip(before).filter((decision) -> !decision.local()).count() >= 20);
			}
			finally {
				running.set(false);
				done.await();
			}
			List<Long> local = localTimes(allowed);
			// 10 per 500 ms on 2 instances: 5 here
			assertThat(LocalRateLimiterTests.busiest(local, Duration.ofMillis(500).toNanos()))
				.as("allowed locally in one period: %s", local)
				.isEqualTo(5);
			assertThat(local).hasSizeGreaterThanOrEqualTo(3 * 5);
			List<Long> afterRestart = new ArrayList<>();
			boolean seenLocal = false;
			for (RateLimitDecision decision : allowed) {
				seenLocal |= decision.local();
				if (seenLocal && !decision.local()) {
					afterRestart.add(nanos(decision.decidedAt()));
				}
			}
			Collections.sort(afterRestart);
			assertThat(LocalRateLimiterTests.busiest(afterRestart, Duration.ofMillis(500).toNanos()))
				.as("allowed by the shared counters after the restart")
				.isLessThanOrEqualTo(10);
		});
	}

	private static List<Long> localTimes(ConcurrentLinkedQueue<RateLimitDecision> allowed) {
		List<Long> times = new ArrayList<>();
		for (RateLimitDecision decision : allowed) {
			if (decision.local()) {
				times.add(nanos(decision.decidedAt()));
			}
		}
		Collections.sort(times);
		return times;
	}

	private static long span(List<Long> sorted) {
		return sorted.isEmpty() ? 0 : sorted.get(sorted.size() - 1) - sorted.get(0);
	}

	private static long nanos(Instant instant) {
		return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
	}

	private static double outcome(MeterRegistry registry, String outcome) {
		return registry.counter("redkit.ratelimit.decisions", "limit", "api", "outcome", outcome).count();
	}

}
