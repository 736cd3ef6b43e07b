package io.github.redkit.docs;

import java.time.Duration;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.test.boot.RedkitAssertions;
import io.github.redkit.test.boot.RedkitTest;
import io.github.redkit.test.boot.RedkitTestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

// tag::checkout-tests[]
// the application.yml of the README's quick start
@SpringBootTest(properties = "spring.config.location=classpath:docs/quick-start.yml")
@RedkitTest // or @RedkitTest(cluster = true): a 3-master cluster
class CheckoutTests {

	@Autowired
	Checkout checkout;

	@Autowired
	RateLimiter rateLimiter;

	@Autowired
	DistributedLocks locks;

	@Autowired
	RedkitTestRedis redis;

	@Test
	void theFourthOrderOfAMinuteIsRefused() {
		checkout("alice");
		checkout("alice");
		checkout("alice");
		RedkitAssertions.assertThat(rateLimiter).isRateLimited("orders", "user:alice");
	}

	@Test
	void ordersStillGoThroughWhenRedisHangs() { // failure-mode: allow
		redis.paused(Duration.ofSeconds(2), () -> checkout("bob"));
	}

	private void checkout(String userId) {
		checkout.order(userId, "book");
	}

}
// end::checkout-tests[]
