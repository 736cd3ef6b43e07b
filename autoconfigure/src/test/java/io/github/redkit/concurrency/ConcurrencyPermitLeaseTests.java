package io.github.redkit.concurrency;

import java.time.Duration;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.concurrency.ConcurrencyLimitAutoConfiguration;
import io.github.redkit.core.ClientPause;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A permit whose renewals cannot reach Redis before its lease ends knows it lost its
 * place ({@code isHeld()} false) while Redis is still out of reach: Redis ends the lease
 * on its own clock and may give the place to another caller meanwhile (the fault harness
 * found three holders of a limit of two while a link was partitioned past the lease).
 */
class ConcurrencyPermitLeaseTests {

	private static final Duration LEASE = Duration.ofMillis(300);

	@PrivateRedis
	private static RedisServer redis;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				ConcurrencyLimitAutoConfiguration.class))
		.withPropertyValues("redkit.concurrency-limit.timeout=200ms", "redkit.concurrency-limit.failure-cooldown=0s",
				"redkit.concurrency-limit.limits.one.limit=1",
				"redkit.concurrency-limit.limits.one.lease=" + LEASE.toMillis() + "ms",
				"spring.data.redis.timeout=10s");

	@Test
	void aPermitWhoseRenewalsCannotReachRedisBeforeItsLeaseEndsIsLost() {
		this.runner.withPropertyValues("spring.data.redis.port=" + redis.port()).run((context) -> {
			ConcurrencyLimiter limiter = context.getBean(ConcurrencyLimiter.class);
			ConcurrencyPermit permit = acquired(limiter, "k");
			long paused = System.nanoTime();
			ClientPause pause = ClientPause.start(redis, Duration.ofMillis(2000));
			await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(10)).until(() -> !permit.isHeld());
			assertThat(Duration.ofNanos(System.nanoTime() - paused)).isLessThan(Duration.ofMillis(1500));
			pause.awaitEnd();
			assertThat(permit.isHeld()).isFalse();
			permit.close();
			ConcurrencyPermit next = acquired(limiter, "k");
			next.close();
		});
	}

	@Test
	void aPermitWhoseRenewalsReachRedisStaysHeldPastItsLease() {
		this.runner.withPropertyValues("spring.data.redis.port=" + redis.port()).run((context) -> {
			ConcurrencyPermit permit = acquired(context.getBean(ConcurrencyLimiter.class), "k2");
			await().during(LEASE.multipliedBy(4))
				.atMost(LEASE.multipliedBy(6))
				.pollInterval(Duration.ofMillis(10))
				.until(permit::isHeld);
			permit.close();
		});
	}

	/**
	 * A permit that holds a place: a cold connection and the first script load may take
	 * longer than the timeout, and then the failure mode lets the call through unleased.
	 */
	private static ConcurrencyPermit acquired(ConcurrencyLimiter limiter, String key) {
		ConcurrencyPermit[] permit = new ConcurrencyPermit[1];
		await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
			permit[0] = limiter.tryAcquire("one", key).orElse(null);
			return permit[0] != null && permit[0].acquired();
		});
		return permit[0];
	}

}
