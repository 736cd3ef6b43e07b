package io.github.redkit.ratelimit;

import java.util.List;

import org.jspecify.annotations.Nullable;
import reactor.util.context.ContextView;

/**
 * A {@link RateLimitDecisionListener} that, for a {@link RateLimited} method returning a
 * {@code Mono} or a {@code Flux}, is told with the Reactor context the result was
 * subscribed with: there is no thread-bound request on a reactive path, so this is how a
 * listener reaches e.g. the WebFlux exchange to write response headers.
 */
public interface ReactiveRateLimitDecisionListener extends RateLimitDecisionListener {

	/**
	 * A reactive call was allowed.
	 * @param limitName the limit
	 * @param policy its policy, or {@code null} when unknown
	 * @param decision the decision
	 * @param keys the identifiers the call was counted under; empty when the limit has no
	 * keys
	 * @param context the Reactor context of the call's subscriber
	 */
	void allowed(String limitName, @Nullable RateLimitPolicy policy, RateLimitDecision decision, List<String> keys,
			ContextView context);

	/**
	 * A call that is not reactive has no Reactor context: nothing to do by default.
	 */
	@Override
	default void allowed(String limitName, @Nullable RateLimitPolicy policy, RateLimitDecision decision) {
	}

}
