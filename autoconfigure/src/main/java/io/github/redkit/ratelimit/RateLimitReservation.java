package io.github.redkit.ratelimit;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongFunction;

/**
 * Permits taken for a call whose real cost is known only after it (an LLM call's tokens,
 * a query's rows): an estimate is taken up front like any decision, and the call is
 * settled once with what it really used. Under-use is given back in the window the call
 * was decided in (while that window still counts it); over-use is charged when the call
 * settles, whatever the windows hold, so that the calls after it wait until it has
 * drained. A reservation that is never settled keeps its estimate.
 * <p>
 * A refused decision, or one let through because Redis could not be asked, took nothing:
 * settling it changes nothing. One decided by the local failure mode is settled in the
 * instance that decided it.
 */
public interface RateLimitReservation {

	/**
	 * The most a call may be settled at: {@code 2^53 - 1}, the largest whole number the
	 * scripts' numbers (doubles) hold exactly. It fills every window of every algorithm
	 * (a token bucket owes it for longer than anyone waits); a settle expression that
	 * yields more, or infinity, is settled at this.
	 */
	long MAX_AMOUNT = (1L << 53) - 1;

	/**
	 * The decision on the estimate.
	 * @return the decision
	 */
	RateLimitDecision decision();

	/**
	 * Whether the call may proceed.
	 * @return {@code true} when the estimate was taken
	 */
	default boolean allowed() {
		return decision().allowed();
	}

	/**
	 * The permits taken up front.
	 * @return the estimate
	 */
	int estimate();

	/**
	 * Settles the call with what it really used, without blocking: the difference with
	 * the estimate is given back or charged in one round trip per cluster slot. A call
	 * settled at 0 did not count at all.
	 * @param actual the permits the call really used, from 0 to {@link #MAX_AMOUNT}
	 * @return completes with {@code true} when Redis applied the difference (or there was
	 * none), {@code false} when it could not be applied (counted as
	 * {@code redkit.ratelimit.settlements} {@code failed}, with a WARN; the estimate may
	 * then be all that is counted); never exceptionally for a Redis failure
	 * @throws IllegalArgumentException when {@code actual} is negative or above
	 * {@link #MAX_AMOUNT}; the reservation can still be settled
	 * @throws IllegalStateException when the reservation was settled already
	 */
	CompletableFuture<Boolean> settleAsync(long actual);

	/**
	 * Settles the call with what it really used and waits until Redis applied it (see
	 * {@link #settleAsync(long)}).
	 * @param actual the permits the call really used, from 0 to {@link #MAX_AMOUNT}
	 * @return {@code true} when Redis applied the difference
	 */
	default boolean settle(long actual) {
		return settleAsync(actual).join();
	}

	/**
	 * A reservation that keeps its estimate whatever it is settled with: what a rate
	 * limiter that cannot give back or charge afterwards hands out.
	 * @param decision the decision on the estimate
	 * @param estimate the permits taken
	 * @return the reservation
	 */
	static RateLimitReservation unsettled(RateLimitDecision decision, int estimate) {
		return of(decision, estimate, (actual) -> CompletableFuture.completedFuture(actual == estimate));
	}

	/**
	 * A reservation settled once through a function: what a rate limiter that gives back
	 * or charges afterwards hands out. The amount is checked and a second settlement
	 * refused before the function is called; a refused decision is settled without it.
	 * @param decision the decision on the estimate
	 * @param estimate the permits taken
	 * @param settlement applies a settlement with what the call really used
	 * @return the reservation
	 */
	static RateLimitReservation of(RateLimitDecision decision, int estimate,
			LongFunction<CompletableFuture<Boolean>> settlement) {
		return new SettledOnce(decision, estimate, settlement, new AtomicBoolean());
	}

	/**
	 * Gives every permit back: the call does not count (a failed log-in limit that does
	 * not count successes, say). The same as settling at 0.
	 * @return completes with {@code true} when Redis gave the permits back
	 */
	default CompletableFuture<Boolean> giveBackAsync() {
		return settleAsync(0);
	}

}
