package io.github.redkit.queue;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long a failed message waits before its next attempt: fixed or exponential, capped,
 * with random jitter so that a burst of failures does not come back as a burst.
 *
 * @param delay the delay after the first failure
 * @param multiplier growth per further failure ({@code 1} = fixed)
 * @param maxDelay the longest delay
 * @param jitter the fraction (0 to 1) of the delay that is randomized, e.g. {@code 0.2}
 * gives a delay in [0.8 d, 1.2 d]
 */
public record BackoffPolicy(Duration delay, double multiplier, Duration maxDelay, double jitter) {

	/**
	 * The delay before the attempt that follows {@code failures} failures.
	 * @param failures how many times the message failed so far (1 or more)
	 * @return the delay
	 */
	public Duration delayAfter(int failures) {
		double millis = this.delay.toMillis() * Math.pow(this.multiplier, Math.max(0, failures - 1));
		millis = Math.min(millis, this.maxDelay.toMillis());
		if (this.jitter > 0) {
			millis = millis * (1 - this.jitter + 2 * this.jitter * ThreadLocalRandom.current().nextDouble());
		}
		return Duration.ofMillis(Math.max(0, Math.round(millis)));
	}

}
