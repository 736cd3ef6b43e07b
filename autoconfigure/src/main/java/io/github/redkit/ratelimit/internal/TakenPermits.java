package io.github.redkit.ratelimit.internal;

import java.util.List;

import io.github.redkit.ratelimit.RateLimitCall;
import io.github.redkit.ratelimit.RateLimitDecision;
import org.jspecify.annotations.Nullable;

/**
 * What one decision took, so that a settlement can give back or charge the difference:
 * the keys of each cluster slot the decision ran on and the script's reply there (its
 * Redis time tells a give-back which window holds the permits).
 *
 * @param limit the limit
 * @param cost the permits the call asked for on each key
 * @param decision the decision
 * @param groups the keys of each slot; the identifiers when a
 * {@link io.github.redkit.ratelimit.RateLimitDecider} or the {@link LocalRateLimiter}
 * decided; empty when nothing was counted
 * @param replies the reply of each slot's script, in the order of {@code groups}
 * @param call the call a decider decided, {@code null} when the limiter's own scripts did
 */
record TakenPermits(PreparedLimit limit, int cost, RateLimitDecision decision, List<List<String>> groups,
		List<byte[]> replies, @Nullable RateLimitCall call) {

	/**
	 * A decision that took nothing in Redis: refused before asking, or decided by the
	 * failure mode (counted in this instance when {@linkplain RateLimitDecision#local()
	 * local}).
	 */
	static TakenPermits withoutRedis(PreparedLimit limit, List<String> keys, int cost, RateLimitDecision decision) {
		return new TakenPermits(limit, cost, decision, decision.local() ? List.of(keys) : List.of(), List.of(), null);
	}

	/** A decision of one script, on one slot. */
	static TakenPermits ofScript(PreparedLimit limit, int cost, List<String> keys, byte[] reply) {
		return new TakenPermits(limit, cost, limit.decision(reply), List.of(keys), List.of(reply), null);
	}

	/** A decision a decider made. */
	static TakenPermits decided(PreparedLimit limit, RateLimitCall call, byte[] reply) {
		return new TakenPermits(limit, call.cost(), limit.decision(reply), List.of(call.identifiers()), List.of(reply),
				call);
	}

}
