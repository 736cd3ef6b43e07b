package io.github.redkit.core.internal;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * How long a capability applies its failure mode without asking Redis after Redis did not
 * answer, so that an outage does not add the timeout to every call. Shared by the rate
 * and concurrency limiters.
 */
public final class FailureCooldown {

	private final Duration duration;

	private volatile long until;

	/**
	 * Creates a cooldown, not cooling down yet.
	 * @param duration how long it lasts after each failure, zero for never
	 */
	public FailureCooldown(Duration duration) {
		Assert.isTrue(duration != null && !duration.isNegative(), "The failure cooldown must not be negative");
		this.duration = duration;
		this.until = System.nanoTime();
	}

	/**
	 * Whether Redis failed less than the cooldown ago.
	 * @param now {@link System#nanoTime()} at the start of the call
	 * @return {@code true} to apply the failure mode without asking Redis
	 */
	public boolean coolingDown(long now) {
		return now - this.until < 0;
	}

	/**
	 * Starts the cooldown: Redis just failed to answer.
	 */
	public void failed() {
		this.until = System.nanoTime() + this.duration.toNanos();
	}

	/**
	 * How long it lasts after a failure: when a refused caller may try again.
	 * @return the duration
	 */
	public Duration duration() {
		return this.duration;
	}

}
