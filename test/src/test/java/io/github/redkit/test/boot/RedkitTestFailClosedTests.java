package io.github.redkit.test.boot;

import java.time.Duration;

import io.github.redkit.ratelimit.RateLimiterUnavailableException;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * With {@code failure-mode: deny} a paused Redis makes the rate limit fail closed.
 */
@SpringBootTest(classes = GreetingApplication.class, properties = "redkit.rate-limit.failure-mode=deny")
@RedkitTest
class RedkitTestFailClosedTests {

	@Autowired
	private GreetingApplication.Greeter greeter;

	@Autowired
	private RedkitTestRedis redis;

	@Test
	void aPausedRedisMakesTheRateLimitFailClosed() {
		assertThatExceptionOfType(RateLimiterUnavailableException.class)
			.isThrownBy(() -> this.redis.paused(Duration.ofSeconds(1), () -> this.greeter.greet("dave")));
		assertThat(this.greeter.greet("dave")).isEqualTo("Hello dave");
	}

}
