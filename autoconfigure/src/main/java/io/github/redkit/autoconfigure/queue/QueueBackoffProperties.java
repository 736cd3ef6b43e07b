package io.github.redkit.autoconfigure.queue;

import java.time.Duration;

import io.github.redkit.queue.BackoffPolicy;

/**
 * Backoff of a queue's failed messages: {@code redkit.queue.queues.<name>.backoff}.
 */
public class QueueBackoffProperties {

	/**
	 * Kind of backoff: fixed (always 'delay') or exponential ('delay' times 'multiplier'
	 * per further failure, up to 'max-delay').
	 */
	private Type type = Type.EXPONENTIAL;

	/**
	 * Delay after the first failure.
	 */
	private Duration delay = Duration.ofSeconds(1);

	/**
	 * Growth factor per further failure (exponential only).
	 */
	private double multiplier = 2.0;

	/**
	 * Longest delay.
	 */
	private Duration maxDelay = Duration.ofMinutes(5);

	/**
	 * Fraction of the delay that is randomized (0 to 1): 0.2 gives a delay between 0.8
	 * and 1.2 times the computed one.
	 */
	private double jitter = 0.2;

	public Type getType() {
		return this.type;
	}

	public void setType(Type type) {
		this.type = type;
	}

	public Duration getDelay() {
		return this.delay;
	}

	public void setDelay(Duration delay) {
		this.delay = delay;
	}

	public double getMultiplier() {
		return this.multiplier;
	}

	public void setMultiplier(double multiplier) {
		this.multiplier = multiplier;
	}

	public Duration getMaxDelay() {
		return this.maxDelay;
	}

	public void setMaxDelay(Duration maxDelay) {
		this.maxDelay = maxDelay;
	}

	public double getJitter() {
		return this.jitter;
	}

	public void setJitter(double jitter) {
		this.jitter = jitter;
	}

	BackoffPolicy toPolicy() {
		return new BackoffPolicy(this.delay, (this.type == Type.FIXED) ? 1.0 : this.multiplier, this.maxDelay,
				this.jitter);
	}

	void validate(String prefix) {
		if (this.type == null) {
			throw new IllegalArgumentException(prefix + ".type must be fixed or exponential");
		}
		if (this.delay == null || this.delay.isNegative()) {
			throw new IllegalArgumentException(prefix + ".delay must be >= 0");
		}
		if (this.maxDelay == null || this.maxDelay.compareTo(this.delay) < 0) {
			throw new IllegalArgumentException(prefix + ".max-delay must be >= " + prefix + ".delay");
		}
		if (this.multiplier < 1) {
			throw new IllegalArgumentException(prefix + ".multiplier must be >= 1");
		}
		if (this.jitter < 0 || this.jitter > 1) {
			throw new IllegalArgumentException(prefix + ".jitter must be between 0 and 1");
		}
	}

	/**
	 * Kinds of backoff.
	 */
	public enum Type {

		/** The same delay after every failure. */
		FIXED,

		/** A delay that grows by the multiplier after every failure. */
		EXPONENTIAL

	}

}
