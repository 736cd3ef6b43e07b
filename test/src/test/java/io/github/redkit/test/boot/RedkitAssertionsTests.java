package io.github.redkit.test.boot;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimiter;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static io.github.redkit.test.boot.RedkitAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The assertions pass and fail with messages that say what was expected, and checking a
 * rate limit takes none of its permits.
 */
@SpringBootTest(classes = GreetingApplication.class, properties = "redkit.key-prefix=shop")
@RedkitTest
class RedkitAssertionsTests {

	@Autowired
	private RateLimiter rateLimiter;

	@Autowired
	private DistributedLocks locks;

	@Autowired
	private QueueTemplate queues;

	@Test
	void checkingARateLimitTakesNoPermit() {
		for (int i = 0; i < 5; i++) {
			assertThat(this.rateLimiter).isNotRateLimited("greetings", "erin");
		}
		this.rateLimiter.tryAcquire("greetings", "erin");
		for (int i = 0; i < 5; i++) {
			assertThat(this.rateLimiter).isNotRateLimited("greetings", "erin");
		}
		assertThat(this.rateLimiter.tryAcquire("greetings", "erin").allowed()).isTrue();
		assertThat(this.rateLimiter).isRateLimited("greetings", "erin");
		assertThat(this.rateLimiter.tryAcquire("greetings", "erin").allowed()).isFalse();
		assertThat(this.rateLimiter).isNotRateLimited("greetings", "frank");
	}

	@Test
	void rateLimitAssertionsFailWithTheLimitAndTheKey() {
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertThat(this.rateLimiter).isRateLimited("greetings", "gina"))
			.withMessageContaining("Expected rate limit <greetings> to refuse <gina> now")
			.withMessageContaining("but it would allow a call (1 left after it)");
		this.rateLimiter.tryAcquire("greetings", "gina");
		this.rateLimiter.tryAcquire("greetings", "gina");
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertThat(this.rateLimiter).isNotRateLimited("greetings", "gina"))
			.withMessageContaining("Expected rate limit <greetings> to allow <gina> now, but a call would be refused");
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertThat(this.rateLimiter).isRateLimited("nope", "gina"))
			.withMessage("No rate limit named <nope>");
	}

	@Test
	void aRateLimiterOutsideATestContextIsNamed() {
		RateLimiter other = new RateLimiter() {

			@Override
			public RateLimitDecision tryAcquire(String limitName, List<String> keys, int cost) {
				throw new UnsupportedOperationException();
			}

			@Override
			public RateLimitDecision tryAcquire(String limitName, RateLimitPolicy policy, List<String> keys, int cost) {
				throw new UnsupportedOperationException();
			}

			@Override
			public void define(String limitName, RateLimitPolicy policy) {
			}

			@Override
			public Optional<RateLimitPolicy> policy(String limitName) {
				return RedkitAssertionsTests.this.rateLimiter.policy(limitName);
			}

		};
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertThat(other).isRateLimited("greetings", "hal"))
			.withMessageContaining("is not a bean of a running @RedkitTest application context");
	}

	@Test
	void lockAssertionsReadTheLockKey() {
		assertThat(this.locks).isNotHeld("invoice:1");
		try (LockHandle handle = this.locks.tryLock("invoice:1", Duration.ZERO, Duration.ofSeconds(30)).orElseThrow()) {
			assertThat(this.locks).isHeld("invoice:1");
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> assertThat(this.locks).isNotHeld("invoice:1"))
				.withMessageContaining("Expected lock <invoice:1> to be free, but it is held (lease ends in");
		}
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> assertThat(this.locks).isHeld("invoice:1"))
			.withMessage("Expected lock <invoice:1> to be held, but it is free");
	}

	@Test
	void queueAssertionsCountReadyMessages() {
		assertThat(this.queues).isEmpty("mails");
		this.queues.send("mails", "one");
		this.queues.send("mails", "two");
		assertThat(this.queues).hasSize("mails", 2);
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> assertThat(this.queues).isEmpty("mails"))
			.withMessage("Expected queue <mails> to hold 0 ready messages, but it holds 2");
	}

}
