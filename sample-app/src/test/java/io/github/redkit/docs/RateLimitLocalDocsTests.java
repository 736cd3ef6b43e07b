package io.github.redkit.docs;

import java.util.List;

import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.ratelimit.actuate.LocalRateLimitHealthIndicator;
import io.github.redkit.test.boot.RedkitTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The local failure mode of {@code docs/rate-limits.md}: the configuration starts, the
 * health indicator names the instances the limit is divided by, and while Redis answers
 * it decides (nothing is marked local).
 */
@SpringBootTest(classes = RateLimitLocalDocsTests.Application.class,
		webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = "spring.config.location=classpath:docs/rate-limit-local.yml")
@RedkitTest
class RateLimitLocalDocsTests {

	@Test
	void theLocalModeStartsAndRedisDecidesWhileItAnswers(@Autowired RateLimiter rateLimiter,
			@Autowired LocalRateLimitHealthIndicator health) {
		RateLimitDecision decision = rateLimiter.tryAcquire("api", List.of("user:1"), 1);
		assertThat(decision.allowed()).isTrue();
		assertThat(decision.local()).isFalse();
		assertThat(health.health(true).getDetails()).containsEntry("instances", 3).containsEntry("degraded", false);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}
