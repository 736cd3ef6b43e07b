package io.github.redkit.test.boot;

import java.time.Duration;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockUnavailableException;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimiter;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static io.github.redkit.test.boot.RedkitAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A paused or frozen Redis shows the application's failure paths: the rate limit fails
 * open (the default {@code failure-mode: allow}), a lock fails closed; then Redis answers
 * again.
 */
@SpringBootTest(classes = GreetingApplication.class)
@RedkitTest
class RedkitTestRedisFaultsTests {

	@Autowired
	private RateLimiter rateLimiter;

	@Autowired
	private DistributedLocks locks;

	@Autowired
	private RedkitTestRedis redis;

	@Test
	void aPausedRedisMakesTheRateLimitFailOpen() {
		this.rateLimiter.tryAcquire("greetings", "carol");
		this.rateLimiter.tryAcquire("greetings", "carol");
		assertThat(this.rateLimiter).isRateLimited("greetings", "carol");
		long start = System.nanoTime();
		RateLimitDecision decision = this.redis.paused(Duration.ofSeconds(2),
				() -> this.rateLimiter.tryAcquire("greetings", "carol"));
		assertThat(decision.allowed()).as("fails open").isTrue();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("returns once Redis answers again")
			.isGreaterThanOrEqualTo(Duration.ofMillis(1900));
		assertThat(this.rateLimiter).isRateLimited("greetings", "carol");
	}

	@Test
	void anUnreachableRedisMakesALockFailClosed() {
		assertThatExceptionOfType(LockUnavailableException.class).isThrownBy(() -> this.redis
			.unreachable(() -> this.locks.tryLock("order:7", Duration.ZERO, Duration.ofSeconds(30))));
		assertThat(this.locks.tryLock("order:8", Duration.ZERO, Duration.ofSeconds(30))).isPresent();
		assertThat(this.locks).isHeld("order:8");
	}

}
