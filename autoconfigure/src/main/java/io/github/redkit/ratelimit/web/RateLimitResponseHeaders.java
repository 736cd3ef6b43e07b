package io.github.redkit.ratelimit.web;

import java.util.List;

import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitDecisionListener;
import io.github.redkit.ratelimit.RateLimitPolicy;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * Writes {@code RateLimit} and {@code RateLimit-Policy} on the response of a request
 * whose {@code @RateLimited} call was allowed, while the response is not committed yet.
 */
public class RateLimitResponseHeaders implements RateLimitDecisionListener {

	@Override
	public void allowed(String limitName, @Nullable RateLimitPolicy policy, RateLimitDecision decision) {
		allowed(limitName, policy, decision, List.of());
	}

	@Override
	public void allowed(String limitName, @Nullable RateLimitPolicy policy, RateLimitDecision decision,
			List<String> keys) {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		if (!(attributes instanceof ServletRequestAttributes servlet)) {
			return;
		}
		HttpServletResponse response = servlet.getResponse();
		if (response == null || response.isCommitted()) {
			return;
		}
		RateLimitHeaders.set(limitName, policy, decision, keys, response::setHeader);
	}

}
