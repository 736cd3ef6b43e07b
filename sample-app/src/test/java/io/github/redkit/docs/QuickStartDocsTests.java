package io.github.redkit.docs;

import io.github.redkit.ratelimit.RateLimitExceededException;
import io.github.redkit.ratelimit.RateLimited;
import io.github.redkit.test.boot.RedkitTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The README's quick start: its {@code application.yml} and its annotated method.
 */
@SpringBootTest(classes = QuickStartDocsTests.Application.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = "spring.config.location=classpath:docs/quick-start.yml")
@RedkitTest
class QuickStartDocsTests {

	@Autowired
	Checkout checkout;

	@Test
	void theFourthOrderOfAMinuteIsRefused() {
		for (int i = 0; i < 3; i++) {
			assertThat(this.checkout.order("alice", "book")).isEqualTo("alice ordered book");
		}
		assertThatExceptionOfType(RateLimitExceededException.class)
			.isThrownBy(() -> this.checkout.order("alice", "book"));
		assertThat(this.checkout.order("bob", "book")).as("another user has limits of his own")
			.isEqualTo("bob ordered book");
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Checkout.class)
	static class Application {

	}

}

// tag::annotated-method[]
@Service
class Checkout {

	// at most 3 orders a minute per user, counted in Redis across every instance
	@RateLimited(value = "orders", key = "'user:' + #userId")
	public String order(String userId, String item) {
		return userId + " ordered " + item;
	}

}
// end::annotated-method[]
