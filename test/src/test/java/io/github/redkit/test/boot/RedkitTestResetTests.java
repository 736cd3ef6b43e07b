package io.github.redkit.test.boot;

import io.github.redkit.ratelimit.RateLimitExceededException;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.core.StringRedisTemplate;

import static io.github.redkit.test.boot.RedkitAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Two tests that use up the same rate limit both pass: Redkit's keys are removed before
 * each test, the application's other keys are kept.
 */
@SpringBootTest(classes = GreetingApplication.class)
@RedkitTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedkitTestResetTests {

	private static final String KEPT = "app:kept:" + RedkitTestResetTests.class.getSimpleName();

	@Autowired
	private GreetingApplication.Greeter greeter;

	@Autowired
	private RateLimiter rateLimiter;

	@Autowired
	private StringRedisTemplate redis;

	@Test
	@Order(1)
	void firstTestUsesUpTheLimit() {
		useUpTheLimit();
		this.redis.opsForValue().set(KEPT, "yes");
	}

	@Test
	@Order(2)
	void secondTestStartsAfreshAndKeepsOtherKeys() {
		assertThat(this.rateLimiter).isNotRateLimited("greetings", "alice");
		useUpTheLimit();
		assertThat(this.redis.opsForValue().getAndDelete(KEPT)).isEqualTo("yes");
	}

	@Test
	@Order(3)
	void theApplicationTalksToTheTestRedis(@Autowired Environment environment,
			@Autowired DataRedisConnectionDetails connectionDetails) {
		int port = RedisServers.standalone().port();
		assertThat(environment.getProperty("spring.data.redis.port", Integer.class)).isEqualTo(port);
		assertThat(connectionDetails).isInstanceOf(TestRedisConnectionDetails.class);
		assertThat(connectionDetails.getStandalone().getPort()).isEqualTo(port);
	}

	private void useUpTheLimit() {
		assertThat(this.greeter.greet("alice")).isEqualTo("Hello alice");
		assertThat(this.greeter.greet("alice")).isEqualTo("Hello alice");
		assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> this.greeter.greet("alice"));
		assertThat(this.rateLimiter).isRateLimited("greetings", "alice");
	}

}
