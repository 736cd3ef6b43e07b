package io.github.redkit.ratelimit.web;

import java.util.List;

import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.ReactiveRateLimitDecisionListener;
import org.jspecify.annotations.Nullable;
import reactor.util.context.ContextView;

import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import org.springframework.web.server.ServerWebExchange;

/**
 * Writes {@code RateLimit} and {@code RateLimit-Policy} on the WebFlux response of a
 * request whose reactive {@code @RateLimited} call was allowed, while the response is not
 * committed yet. The exchange is read from the Reactor context, where
 * {@link ServerWebExchangeContextFilter} puts it.
 */
public class RateLimitExchangeHeaders implements ReactiveRateLimitDecisionListener {

	@Override
	public void allowed(String limitName, @Nullable RateLimitPolicy policy, RateLimitDecision decision,
			List<String> keys, ContextView context) {
		// read from the context as the filter's own getExchange does, without its
		// Optional
		// and the function it would be handed
		ServerWebExchange exchange = context.getOrDefault(ServerWebExchangeContextFilter.EXCHANGE_CONTEXT_ATTRIBUTE,
				null);
		if (exchange != null && !exchange.getResponse().isCommitted()) {
			RateLimitHeaders.set(limitName, policy, decision, keys, exchange.getResponse().getHeaders()::set);
		}
	}

}
