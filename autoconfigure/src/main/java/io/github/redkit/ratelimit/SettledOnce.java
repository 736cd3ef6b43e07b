package io.github.redkit.ratelimit;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongFunction;

/**
 * A reservation settled once through a function (see
 * {@link RateLimitReservation#of(RateLimitDecision, int, LongFunction)}).
 *
 * @param decision the decision on the estimate
 * @param estimate the permits taken
 * @param settlement applies a settlement
 * @param settled set by the first settlement
 */
record SettledOnce(RateLimitDecision decision, int estimate, LongFunction<CompletableFuture<Boolean>> settlement,
		AtomicBoolean settled) implements RateLimitReservation {

	@Override
	public CompletableFuture<Boolean> settleAsync(long actual) {
		if (actual < 0) {
			throw new IllegalArgumentException(
					"actual: a call cannot have used a negative amount (was " + actual + ")");
		}
		if (actual > MAX_AMOUNT) {
			throw new IllegalArgumentException("actual: a call is settled at most at " + MAX_AMOUNT
					+ " (2^53 - 1, what fills every window) (was " + actual + ")");
		}
		if (!this.settled.compareAndSet(false, true)) {
			throw new IllegalStateException("This reservation was settled already");
		}
		// a refused decision took nothing: nothing to settle
		return this.decision.allowed() ? this.settlement.apply(actual) : CompletableFuture.completedFuture(true);
	}

}
