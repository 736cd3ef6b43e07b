package io.github.redkit.gateway.mvc;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitExceededException;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.ratelimit.RateLimiterUnavailableException;
import io.github.redkit.ratelimit.web.RateLimitExceptionHandler;
import io.github.redkit.ratelimit.web.RateLimitHeaders;
import org.jspecify.annotations.Nullable;

import org.springframework.cloud.gateway.server.mvc.common.MvcUtils;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.servlet.function.HandlerFilterFunction;
import org.springframework.web.servlet.function.HandlerFunction;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The filter {@link RedkitRateLimitFilterFunctions} builds: decides every limit of a
 * route for every identifier of a request before the route's handler runs.
 */
final class RateLimitFilter implements HandlerFilterFunction<ServerResponse, ServerResponse> {

	private final List<String> limits;

	private final int cost;

	private final Function<ServerRequest, List<String>> keys;

	// the filter is built before the application context it runs in is at hand (Java
	// routes are beans, YAML routes are built by the gateway): found on first use
	private volatile @Nullable RateLimiter rateLimiter;

	RateLimitFilter(List<String> limits, int cost, Function<ServerRequest, List<String>> keys,
			@Nullable RateLimiter rateLimiter) {
		if (limits.isEmpty()) {
			throw new IllegalArgumentException("A rate-limited route needs at least one limit");
		}
		if (cost < 1) {
			throw new IllegalArgumentException("A rate-limited route's cost must be at least 1 (was " + cost + ")");
		}
		this.limits = List.copyOf(limits);
		this.cost = cost;
		this.keys = keys;
		this.rateLimiter = rateLimiter;
	}

	@Override
	public ServerResponse filter(ServerRequest request, HandlerFunction<ServerResponse> next) throws Exception {
		List<String> keys = this.keys.apply(request);
		if (keys.isEmpty()) {
			// as the gateways answer a request their key resolver finds no key for
			return ServerResponse.status(HttpStatus.FORBIDDEN).build();
		}
		List<RateLimitDecision> decisions;
		try {
			decisions = decide(rateLimiter(request), keys);
		}
		catch (RateLimiterUnavailableException ex) {
			return answer(request, RateLimitExceptionHandler.unavailable(ex));
		}
		int refused = refusal(decisions);
		if (refused >= 0) {
			RateLimitDecision refusal = decisions.get(refused);
			return answer(request, RateLimitExceptionHandler.tooManyRequests(
					new RateLimitExceededException(this.limits.get(refused), refusal.policy(), refusal, keys)));
		}
		ServerResponse response = next.handle(request);
		Map<String, List<String>> fields = new LinkedHashMap<>();
		for (int i = 0; i < decisions.size(); i++) {
			RateLimitDecision decision = decisions.get(i);
			RateLimitHeaders.set(this.limits.get(i), decision.policy(), decision, keys,
					(name, value) -> fields.computeIfAbsent(name, (n) -> new ArrayList<>()).add(value));
		}
		// one RFC 9651 list per field, the items of every limit in the route's order; a
		// mark of a local decision once
		fields.forEach((name, values) -> response.headers()
			.set(name, RateLimitHeaders.DEGRADED.equals(name) ? values.get(0) : String.join(", ", values)));
		return response;
	}

	/**
	 * One limit is one call, every identifier in one script; several limits are sent
	 * together, each with every identifier, and awaited together.
	 */
	private List<RateLimitDecision> decide(RateLimiter rateLimiter, List<String> keys) {
		if (this.limits.size() == 1) {
			return List.of(rateLimiter.tryAcquire(this.limits.get(0), keys, this.cost));
		}
		List<CompletableFuture<RateLimitDecision>> answers = new ArrayList<>(this.limits.size());
		for (String limit : this.limits) {
			answers.add(rateLimiter.tryAcquireAsync(limit, keys, this.cost));
		}
		List<RateLimitDecision> decisions = new ArrayList<>(answers.size());
		for (CompletableFuture<RateLimitDecision> answer : answers) {
			try {
				decisions.add(answer.join());
			}
			catch (CompletionException ex) {
				throw (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
			}
		}
		return decisions;
	}

	/**
	 * The refusal to answer with: the one that makes the client wait longest, so that its
	 * {@code Retry-After} holds for every limit that refused.
	 */
	private static int refusal(List<RateLimitDecision> decisions) {
		int refused = -1;
		for (int i = 0; i < decisions.size(); i++) {
			RateLimitDecision decision = decisions.get(i);
			if (!decision.allowed()
					&& (refused < 0 || decision.retryAfter().compareTo(decisions.get(refused).retryAfter()) > 0)) {
				refused = i;
			}
		}
		return refused;
	}

	private RateLimiter rateLimiter(ServerRequest request) {
		RateLimiter rateLimiter = this.rateLimiter;
		if (rateLimiter == null) {
			rateLimiter = MvcUtils.getApplicationContext(request).getBean(RateLimiter.class);
			this.rateLimiter = rateLimiter;
		}
		return rateLimiter;
	}

	private static ServerResponse answer(ServerRequest request, ResponseEntity<ProblemDetail> answer) {
		ServerResponse.BodyBuilder response = ServerResponse.status(answer.getStatusCode())
			.headers((headers) -> headers.addAll(answer.getHeaders()));
		ProblemDetail problem = answer.getBody();
		if (problem == null) {
			return response.build();
		}
		if (problem.getInstance() == null) {
			// as Spring MVC's handlers fill it in
			problem.setInstance(URI.create(request.requestPath().value()));
		}
		return response.contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
	}

}
