package io.github.redkit.test.boot;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.ratelimit.RateLimiter;

/**
 * AssertJ entry points for Redkit's beans in a {@link RedkitTest @RedkitTest}: <pre>
 * assertThat(rateLimiter).isRateLimited("api", "user:1");
 * assertThat(locks).isHeld("order:42");
 * assertThat(queues).hasSize("emails", 3);
 * </pre> None of them changes what it looks at.
 */
public final class RedkitAssertions {

	private RedkitAssertions() {
	}

	/**
	 * Assertions on the rate limits of a {@code RateLimiter} bean.
	 * @param rateLimiter the application's rate limiter
	 * @return the assertions
	 */
	public static RateLimiterAssert assertThat(RateLimiter rateLimiter) {
		return new RateLimiterAssert(rateLimiter);
	}

	/**
	 * Assertions on the locks of a {@code DistributedLocks} bean.
	 * @param locks the application's locks
	 * @return the assertions
	 */
	public static DistributedLocksAssert assertThat(DistributedLocks locks) {
		return new DistributedLocksAssert(locks);
	}

	/**
	 * Assertions on the queues of a {@code QueueTemplate} bean.
	 * @param queues the application's queue template
	 * @return the assertions
	 */
	public static QueueTemplateAssert assertThat(QueueTemplate queues) {
		return new QueueTemplateAssert(queues);
	}

}
