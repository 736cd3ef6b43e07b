package io.github.redkit.autoconfigure.queue;

import java.time.Duration;

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
