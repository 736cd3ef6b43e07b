package io.github.redkit.docs;

import java.time.Duration;
import java.util.List;

import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitExceededException;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitReservation;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.ratelimit.RateLimited;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.ratelimit.ReactiveRateLimiter;
import io.github.redkit.test.boot.RedkitTest;
import jakarta.servlet.http.HttpServletRequest;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The snippets of {@code docs/rate-limits.md}: its configuration, the annotated
 * controller, the bean and its reactive face.
 */
@SpringBootTest(classes = RateLimitsDocsTests.Application.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = "spring.config.location=classpath:docs/rate-limits.yml")
@RedkitTest
class RateLimitsDocsTests {

	@Autowired
	PostController controller;

	@Autowired
	Posts posts;

	@Autowired
	RateLimiter rateLimiter;

	@Autowired
	ReactiveRateLimiter reactiveRateLimiter;

	@Test
	void theConfigurationDefinesBothLimits() {
		assertThat(this.rateLimiter.policy("api")).hasValueSatisfying((policy) -> {
			assertThat(policy.algorithm()).isEqualTo(RateLimitAlgorithm.SLIDING_WINDOW);
			assertThat(policy.windows()).hasSize(3);
		});
		assertThat(this.rateLimiter.policy("login"))
			.hasValueSatisfying((policy) -> assertThat(policy.algorithm()).isEqualTo(RateLimitAlgorithm.SLIDING_LOG));
	}

	@Test
	void theControllerTakesPermitsOfTheIpAndTheUser() {
		MockHttpServletRequest request = new MockHttpServletRequest();
		long start = System.nanoTime();
		for (int i = 0; i < 10; i++) {
			assertThat(this.controller.create(request, "alice", new Post("hello " + i)).text()).isEqualTo("hello " + i);
		}
		try {
			this.controller.create(request, "alice", new Post("one too many"));
			assertThat(Duration.ofNanos(System.nanoTime() - start)).as("allowed only after the 1 s window moved on")
				.isGreaterThan(Duration.ofMillis(900));
		}
		catch (RateLimitExceededException ex) {
			assertThat(ex.getLimitName()).isEqualTo("api");
		}
	}

	@Test
	void anInlineLimitAllowsFivePasswordResetsPerEmail() {
		for (int i = 0; i < 5; i++) {
			this.controller.reset("ann@example.com");
		}
		assertThatExceptionOfType(RateLimitExceededException.class)
			.isThrownBy(() -> this.controller.reset("ann@example.com"));
		this.controller.reset("bob@example.com");
		assertThat(this.posts.resets()).isEqualTo(6);
	}

	@Test
	void theBeanDecidesWithoutTheAnnotation() {
		assertThat(handle("10.0.0.1", "carol")).isEqualTo("handled");
		// tag::define[]
		// per plan or tenant, at run time; counters of unchanged windows are kept
		rateLimiter.define("plan-gold", new RateLimitPolicy(RateLimitAlgorithm.TOKEN_BUCKET,
				List.of(RateLimitWindow.of(100, Duration.ofSeconds(1)))));
		// end::define[]
		assertThat(this.rateLimiter.tryAcquire("plan-gold", "tenant:acme").allowed()).isTrue();
	}

	@Test
	void aReservationIsSettledWithWhatTheCallReallyUsed() {
		assertThat(query("erin")).isEqualTo("7 rows");
		// 8 taken, 1 given back, 1 for this look
		assertThat(this.rateLimiter.tryAcquire("api", List.of("user:erin"), 1).remaining()).isEqualTo(10 - 7 - 1);
	}

	String query(String id) {
		// tag::reserve[]
		RateLimitReservation reservation = rateLimiter.reserve("api", List.of("user:" + id), 8);
		if (!reservation.allowed()) {
			return "retry after " + reservation.decision().retryAfter();
		}
		int rows = runTheQuery();
		// gives back what the query did not use, or charges what it used beyond 8
		reservation.settle(rows);
		// end::reserve[]
		return rows + " rows";
	}

	private int runTheQuery() {
		return 7;
	}

	String handle(String ip, String id) {
		// tag::bean[]
		RateLimitDecision decision = rateLimiter.tryAcquire("api", List.of("ip:" + ip, "user:" + id), 1);
		if (!decision.allowed()) {
			return "retry after " + decision.retryAfter();
		}
		// end::bean[]
		return "handled";
	}

	@Test
	void theReactiveFaceDecidesOnSubscription() {
		assertThat(reactive("dave").block()).isEqualTo("hello dave");
	}

	Mono<String> reactive(String id) {
		// tag::reactive[]
		return reactiveRateLimiter.tryAcquire("api", List.of("user:" + id), 1)
			.flatMap((decision) -> decision.allowed() ? handle(id)
					: Mono.error(new TooManyRequests(decision.retryAfter())));
		// end::reactive[]
	}

	Mono<String> handle(String id) {
		return Mono.just("hello " + id);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ PostController.class, Posts.class })
	static class Application {

	}

	static class TooManyRequests extends RuntimeException {

		TooManyRequests(Duration retryAfter) {
			super("retry after " + retryAfter);
		}

	}

}

record Post(String text) {
}

@Component
class Posts {

	private int resets;

	Post publish(String userId, Post post) {
		return post;
	}

	synchronized void sendPasswordReset(String email) {
		this.resets++;
	}

	synchronized int resets() {
		return this.resets;
	}

}

// tag::controller[]
@RestController
class PostController {

	private final Posts posts;

	PostController(Posts posts) {
		this.posts = posts;
	}

	// allowed only if the IP *and* the user are under every window of "api"
	@PostMapping("/posts")
	@RateLimited(value = "api", key = { "'ip:' + #request.remoteAddr", "'user:' + #userId" })
	public Post create(HttpServletRequest request, @RequestHeader("X-User") String userId, @RequestBody Post post) {
		return this.posts.publish(userId, post);
	}

	// an inline limit: 5 per 15 minutes per e-mail, exact
	@PostMapping("/password-reset")
	@RateLimited(limit = 5, period = "15m", algorithm = RateLimitAlgorithm.SLIDING_LOG, key = "#email")
	public void reset(@RequestParam String email) {
		this.posts.sendPasswordReset(email);
	}

}
// end::controller[]
