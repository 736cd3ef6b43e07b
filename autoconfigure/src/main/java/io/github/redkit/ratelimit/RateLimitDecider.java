package io.github.redkit.ratelimit;

import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * Decides some named limits in place of the limiter's own script on the local Redis: the
 * way a layer above the rate limits (several regions counting a limit marked
 * {@code global}) changes how a limit is decided without the rate limits knowing it. A
 * bean of this type is picked up by the auto-configured {@link RateLimiter}.
 */
public interface RateLimitDecider {

	/**
	 * The named limits this decides.
	 * @return the limits' names
	 */
	Set<String> limitNames();

	/**
	 * Checks, when a limit it decides is defined, that it can decide it.
	 * @param limitName the limit's name
	 * @param policy its policy, {@code null} when no such limit is configured
	 * @throws IllegalArgumentException when it cannot decide the limit
	 */
	void check(String limitName, @Nullable RateLimitPolicy policy);

	/**
	 * Decides one call.
	 * @param call the call
	 * @return the reply of a decision script: seven little-endian doubles (allowed,
	 * remaining, retry after ms, reset after ms, the deciding window's index, Redis time
	 * in ms, the refused windows as bits), as {@code ratelimit_windows.lua} writes them
	 */
	CompletableFuture<byte[]> decide(RateLimitCall call);

	/**
	 * Sends one attempt to settle a call it decided with what the call really used: gives
	 * back {@code -difference} permits in the windows the call was decided in, or charges
	 * {@code difference} permits now whatever the windows hold. The rate limiter sends a
	 * give-back again with the same {@code settlementId} when an attempt fails or times
	 * out (up to a few times), so a give-back must be applied at most once per
	 * {@code settlementId} however many attempts reach Redis; a charge is sent once. By
	 * default nothing is settled and the call keeps what it took.
	 * @param call the call as it was decided
	 * @param reply the decision's reply
	 * @param difference what the call really used minus what it took, not 0
	 * @param settlementId the same for every attempt of one settlement
	 * @return completes with {@code true} when the difference was applied (or, for a
	 * give-back, an earlier attempt had applied it), {@code false} when it will not be
	 * applied; exceptionally when this attempt failed
	 */
	default CompletableFuture<Boolean> settle(RateLimitCall call, byte[] reply, long difference, String settlementId) {
		return CompletableFuture.completedFuture(false);
	}

}
