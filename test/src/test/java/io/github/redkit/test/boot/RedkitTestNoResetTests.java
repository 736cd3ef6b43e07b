package io.github.redkit.test.boot;

import io.github.redkit.ratelimit.RateLimiter;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static io.github.redkit.test.boot.RedkitAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code reset = NONE} one test's counters are still there in the next, until
 * {@link RedkitTestRedis#reset()} removes them.
 */
@SpringBootTest(classes = GreetingApplication.class, properties = "redkit.key-prefix=no-reset")
@RedkitTest(reset = RedkitTest.Reset.NONE)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedkitTestNoResetTests {

	@Autowired
	private RateLimiter rateLimiter;

	@Autowired
	private RedkitTestRedis redis;

	@Test
	@Order(1)
	void firstTestUsesUpTheLimit() {
		this.redis.reset();
		this.rateLimiter.tryAcquire("greetings", "bob");
		this.rateLimiter.tryAcquire("greetings", "bob");
		assertThat(this.rateLimiter).isRateLimited("greetings", "bob");
	}

	@Test
	@Order(2)
	void secondTestStillSeesItUntilAResetOnDemand() {
		assertThat(this.rateLimiter).isRateLimited("greetings", "bob");
		assertThat(this.redis.reset()).isPositive();
		assertThat(this.rateLimiter).isNotRateLimited("greetings", "bob");
	}

}
