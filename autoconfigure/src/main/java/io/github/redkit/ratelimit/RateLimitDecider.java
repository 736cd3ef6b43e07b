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
	 * Settles a call it decided with what the call really used: gives back
	 * {@code -difference} permits in the windows the call was decided in, or charges
	 * {@code difference} permits now whatever the windows hold. By default nothing is
	 * settled and the call keeps what it took.
	 * @param call the call as it was decided
	 * @param reply the decision's reply
	 * @param difference what the call really used minus what it took, not 0
	 * @return completes with {@code true} when the difference was applied
	 */
	default CompletableFuture<Boolean> settle(RateLimitCall call, byte[] reply, long difference) {
		return CompletableFuture.completedFuture(false);
	}

}
