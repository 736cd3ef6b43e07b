package io.github.redkit.resilience;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.budget.BudgetAutoConfiguration;
import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.budget.Budgets;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RespClient;
import io.github.redkit.testsupport.SentinelRedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Sentinel failover with Redkit configured through Spring Boot's
 * {@code spring.data.redis.sentinel.*}: the master is killed (SIGKILL) under load, the
 * Sentinels promote the replica, and the application follows it without a restart. The
 * measurements are printed (see docs/reliability.md); the assertions are what Redkit
 * promises.
 */
@Tag("failover")
class SentinelFailoverTests {

	@Test
	void underLoadTheApplicationFollowsTheNewMasterAndFencingTokensKeepIncreasing(
			@PrivateRedis(sentinelDownAfterMillis = 500) SentinelRedisServer redis) throws Exception {
		try (ConfigurableApplicationContext context = start(redis)) {
			Budgets budgets = context.getBean(Budgets.class);
			DistributedLocks locks = context.getBean(DistributedLocks.class);
			RateLimiter limiter = context.getBean(RateLimiter.class);
			long initial = 1_000_000_000L;
			budgets.create("load", initial);
			AtomicBoolean running = new AtomicBoolean(true);
			AtomicLong acknowledged = new AtomicLong();
			AtomicLong failedSpends = new AtomicLong();
			AtomicLong highestToken = new AtomicLong();
			AtomicLong tokenRegressions = new AtomicLong();
			AtomicLong slowestDecisionNanos = new AtomicLong();
			AtomicLong lastSuccess = new AtomicLong();
			ExecutorService pool = Executors.newFixedThreadPool(6);
			List<Future<?>> load = new ArrayList<>();
			try {
				for (int i = 0; i < 4; i++) {
					load.add(pool.submit(() -> {
						while (running.get()) {
							try {
								if (budgets.spend("load", 1, UUID.randomUUID().toString()).applied()) {
									acknowledged.incrementAndGet();
									lastSuccess.set(System.nanoTime());
								}
							}
							catch (RuntimeException ex) {
								failedSpends.incrementAndGet();
							}
						}
					}));
				}
				load.add(pool.submit(() -> {
					while (running.get()) {
						try {
							LockHandle lock = locks.tryLock("load", Duration.ZERO, Duration.ofSeconds(5)).orElse(null);
							if (lock != null) {
								if (highestToken.getAndAccumulate(lock.fencingToken(), Math::max) >= lock
									.fencingToken()) {
									tokenRegressions.incrementAndGet();
								}
								lock.close();
							}
						}
						catch (RuntimeException ex) {
							// counted through the spends; a lock call fails the same way
						}
					}
				}));
				load.add(pool.submit(() -> {
					while (running.get()) {
						long start = System.nanoTime();
						limiter.tryAcquire("api", "client-1");
						slowestDecisionNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
					}
				}));
				await().atMost(Duration.ofSeconds(10)).until(() -> acknowledged.get() > 1000);
				long killedAt = System.nanoTime();
				int oldMaster = redis.killMaster();
				int newMaster = redis.awaitFailover(oldMaster, Duration.ofSeconds(30));
				long promotedAt = System.nanoTime();
				await().atMost(Duration.ofSeconds(30)).until(() -> lastSuccess.get() > promotedAt);
				long recoveredAt = lastSuccess.get();
				long afterRecovery = acknowledged.get();
				await().atMost(Duration.ofSeconds(10)).until(() -> acknowledged.get() > afterRecovery + 1000);
				running.set(false);
				for (Future<?> task : load) {
					task.get();
				}
				long spent = initial - budgets.remaining("load");
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				double failedOpen = meters.get("redkit.ratelimit.decisions")
					.tag("outcome", "failed-open")
					.counter()
					.count();
				System.out.printf("Sentinel failover under load: master %d -> %d; promoted %d ms after the kill, "
						+ "writes again %d ms after the kill; %d spends acknowledged, %d applied, %d calls failed "
						+ "(acknowledged but lost: %d; failed but applied: at least %d); fencing token regressions %d; "
						+ "slowest rate-limit decision %d ms, %.0f decisions failed open%n", oldMaster, newMaster,
						Duration.ofNanos(promotedAt - killedAt).toMillis(),
						Duration.ofNanos(recoveredAt - killedAt).toMillis(), acknowledged.get(), spent,
						failedSpends.get(), Math.max(0, acknowledged.get() - spent),
						Math.max(0, spent - acknowledged.get()), tokenRegressions.get(),
						Duration.ofNanos(slowestDecisionNanos.get()).toMillis(), failedOpen);
				// nothing is applied that was not asked for; a failed call may have been
				// applied (retry it with its operation id)
				assertThat(spent).isLessThanOrEqualTo(acknowledged.get() + failedSpends.get());
				assertThat(tokenRegressions.get()).as("fencing tokens that did not increase").isZero();
				// without a master, decisions follow the failure mode within 500 ms
				assertThat(Duration.ofNanos(slowestDecisionNanos.get())).isLessThan(Duration.ofSeconds(2));
				assertThat(failedOpen).as("the outage shows in the metrics").isPositive();
			}
			finally {
				running.set(false);
				pool.shutdownNow();
			}
		}
	}

	@Test
	void whatTheReplicaNeverReceivedIsLostButTheNextFencingTokenIsStillHigher(
			@PrivateRedis(sentinelDownAfterMillis = 500) SentinelRedisServer redis) {
		try (ConfigurableApplicationContext context = start(redis)) {
			Budgets budgets = context.getBean(Budgets.class);
			DistributedLocks locks = context.getBean(DistributedLocks.class);
			budgets.create("behind", 1000);
			locks.tryLock("invoice", Duration.ZERO, Duration.ofSeconds(60)).orElseThrow().close();
			int oldMaster = redis.masterPort();
			int replica = redis.dataPorts().stream().filter((port) -> port != oldMaster).findFirst().orElseThrow();
			// the replica is cut off (frozen, so it cannot reconnect, and dropped by the
			// master); the master goes on acknowledging, then dies
			try (RespClient master = redis.client(oldMaster)) {
				assertThat(master.call("WAIT", "1", "5000")).isEqualTo(1L);
				redis.freeze(replica, true);
				master.call("CLIENT", "KILL", "TYPE", "replica");
			}
			for (int i = 0; i < 10; i++) {
				assertThat(budgets.spend("behind", 10, "op-" + i).applied()).isTrue();
			}
			LockHandle first = locks.tryLock("invoice", Duration.ZERO, Duration.ofSeconds(60)).orElseThrow();
			redis.killMaster();
			redis.freeze(replica, false);
			redis.awaitFailover(oldMaster, Duration.ofSeconds(30));
			long remaining = await().atMost(Duration.ofSeconds(30))
				.ignoreExceptions()
				.until(() -> budgets.remaining("behind"), (value) -> value >= 0);
			LockHandle second = await().atMost(Duration.ofSeconds(30))
				.ignoreExceptions()
				.until(() -> locks.tryLock("invoice", Duration.ZERO, Duration.ofSeconds(60)).orElse(null),
						(handle) -> handle != null);
			System.out.printf(
					"Replica behind at the failover: 10 acknowledged spends of 10 -> budget %d of 1000 after the failover; "
							+ "the lock held on the old master was acquired again: fencing token %d, then %d%n",
					remaining, first.fencingToken(), second.fencingToken());
			// the spends the replica never received are gone
			assertThat(remaining).isEqualTo(1000);
			// two holders, but the second token is the higher one
			assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
			// a lost spend retried with its operation id applies once
			assertThat(budgets.spend("behind", 10, "op-0").applied()).isTrue();
			assertThat(budgets.spend("behind", 10, "op-0").applied()).isTrue();
			assertThat(budgets.remaining("behind")).isEqualTo(990);
		}
	}

	private static ConfigurableApplicationContext start(SentinelRedisServer redis) {
		return new SpringApplicationBuilder(FailoverApplication.class).web(WebApplicationType.NONE)
			.properties(redis.springProperties())
			.properties("spring.data.redis.timeout=1s", "redkit.key-prefix=failover", "redkit.lock.redis-timeout=1s",
					"redkit.budget.timeout=1s", "redkit.rate-limit.limits.api.windows[0].limit=1000000000",
					"redkit.rate-limit.limits.api.windows[0].period=1s", "spring.main.banner-mode=off")
			.run();
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
			BudgetAutoConfiguration.class, LockAutoConfiguration.class, RateLimitAutoConfiguration.class })
	static class FailoverApplication {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

}
