package io.github.redkit.docs;

import java.util.List;

import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.test.boot.RedkitTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The local allowance of {@code docs/rate-limits.md}: the configuration starts, and the
 * first call takes a batch of 50 that the next calls are served from.
 */
@SpringBootTest(classes = RateLimitAllowanceDocsTests.Application.class,
		webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = "spring.config.location=classpath:docs/rate-limit-allowance.yml")
@RedkitTest
class RateLimitAllowanceDocsTests {

	@Test
	void theFirstCallTakesABatchAndTheNextAreServedFromIt(@Autowired RateLimiter rateLimiter) {
		RateLimitDecision first = rateLimiter.tryAcquire("search", List.of("all"), 1);
		RateLimitDecision second = rateLimiter.tryAcquire("search", List.of("all"), 1);
		assertThat(first.allowed()).isTrue();
		assertThat(first.remaining()).isEqualTo(20000 - 1);
		assertThat(second.allowed()).isTrue();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}
