package io.github.redkit.ratelimit;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A reservation that keeps its estimate whatever it is settled with.
 *
 * @param decision the decision on the estimate
 * @param estimate the permits taken
 * @param settled set by the first settlement
 */
record UnsettledReservation(RateLimitDecision decision, int estimate,
		AtomicBoolean settled) implements RateLimitReservation {

	@Override
	public CompletableFuture<Boolean> settleAsync(long actual) {
		if (actual < 0) {
			throw new IllegalArgumentException("A call cannot have used a negative amount (was " + actual + ")");
		}
		if (!this.settled.compareAndSet(false, true)) {
			throw new IllegalStateException("This reservation was settled already");
		}
		return CompletableFuture.completedFuture(actual == this.estimate || !this.decision.allowed());
	}

}
