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
import io.github.redkit.ratelimit.RateLimitReservation;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.ratelimit.RateLimiterUnavailableException;
import io.github.redkit.ratelimit.web.CountedStatuses;
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
 * route for every identifier of a request before the route's handler runs. Each limit's
 * permits are reserved, so that a request one limit refuses gives back what the others
 * took for it, and one whose answer's status does not count gives back everything.
 */
final class RateLimitFilter implements HandlerFilterFunction<ServerResponse, ServerResponse> {

	private final List<String> limits;

	private final int cost;

	private final Function<ServerRequest, List<String>> keys;

	private final CountedStatuses counted;

	// the filter is built before the application context it runs in is at hand (Java
	// routes are beans, YAML routes are built by the gateway): found on first use
	private volatile @Nullable RateLimiter rateLimiter;

	RateLimitFilter(List<String> limits, int cost, Function<ServerRequest, List<String>> keys, CountedStatuses counted,
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
		this.counted = counted;
		this.rateLimiter = rateLimiter;
	}

	@Override
	public ServerResponse filter(ServerRequest request, HandlerFunction<ServerResponse> next) throws Exception {
		List<String> keys = this.keys.apply(request);
		if (keys.isEmpty()) {
			// as the gateways answer a request their key resolver finds no key for
			return ServerResponse.status(HttpStatus.FORBIDDEN).build();
		}
		List<RateLimitReservation> reservations;
		try {
			reservations = reserve(rateLimiter(request), keys);
		}
		catch (RateLimiterUnavailableException ex) {
			return answer(request, RateLimitExceptionHandler.unavailable(ex));
		}
		List<RateLimitDecision> decisions = reservations.stream().map(RateLimitReservation::decision).toList();
		int refused = refusal(decisions);
		if (refused >= 0) {
			reservations.forEach(RateLimitReservation::giveBackAsync);
			RateLimitDecision refusal = decisions.get(refused);
			return answer(request, RateLimitExceptionHandler.tooManyRequests(
					new RateLimitExceededException(this.limits.get(refused), refusal.policy(), refusal, keys)));
		}
		ServerResponse response;
		try {
			response = next.handle(request);
		}
		catch (Exception ex) {
			// answered by the application's error handling: judged as a server error
			settle(reservations, 500);
			throw ex;
		}
		Map<String, String> fields = fields(decisions, keys);
		Integer status = statusOf(response);
		if (status == null) {
			// an asynchronous answer not complete yet: settled with the status it is sent
			// with, the fields written before it
			return new FieldsAddedResponse(response, fields, (sent) -> settle(reservations, sent));
		}
		settle(reservations, status);
		return withFields(response, fields);
	}

	private Map<String, String> fields(List<RateLimitDecision> decisions, List<String> keys) {
		Map<String, List<String>> fields = new LinkedHashMap<>();
		for (int i = 0; i < decisions.size(); i++) {
			RateLimitDecision decision = decisions.get(i);
			RateLimitHeaders.set(this.limits.get(i), decision.policy(), decision, keys,
					(name, value) -> fields.computeIfAbsent(name, (n) -> new ArrayList<>()).add(value));
		}
		// one RFC 9651 list per field, the items of every limit in the route's order; a
		// mark of a local decision once
		Map<String, String> values = new LinkedHashMap<>();
		fields.forEach((name, items) -> values.put(name,
				RateLimitHeaders.DEGRADED.equals(name) ? items.get(0) : String.join(", ", items)));
		return values;
	}

	/**
	 * The status of the handler's answer, or {@code null} when it cannot be read before
	 * the answer is written: {@code ServerResponse.async} throws until its future
	 * completes (and rethrows a failure it completed with).
	 */
	private static @Nullable Integer statusOf(ServerResponse response) {
		try {
			return response.statusCode().value();
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	private static ServerResponse withFields(ServerResponse response, Map<String, String> fields) {
		try {
			fields.forEach(response.headers()::set);
			return response;
		}
		catch (UnsupportedOperationException ex) {
			// a response the route's handler built (not the proxy's): its headers are
			// read-only, the first set changed nothing
			return new FieldsAddedResponse(response, fields, null);
		}
	}

	private void settle(List<RateLimitReservation> reservations, int status) {
		if (!this.counted.counts(status)) {
			reservations.forEach(RateLimitReservation::giveBackAsync);
		}
	}

	/**
	 * One limit is one call, every identifier in one script; several limits are sent
	 * together, each with every identifier, and awaited together. A reservation costs
	 * what a decision does; a give-back is sent only when one is needed.
	 */
	private List<RateLimitReservation> reserve(RateLimiter rateLimiter, List<String> keys) {
		if (this.limits.size() == 1) {
			return List.of(rateLimiter.reserve(this.limits.get(0), keys, this.cost));
		}
		List<CompletableFuture<RateLimitReservation>> answers = new ArrayList<>(this.limits.size());
		for (String limit : this.limits) {
			answers.add(rateLimiter.reserveAsync(limit, keys, this.cost));
		}
		List<RateLimitReservation> reservations = new ArrayList<>(answers.size());
		RuntimeException failure = null;
		for (CompletableFuture<RateLimitReservation> answer : answers) {
			try {
				reservations.add(answer.join());
			}
			catch (CompletionException ex) {
				failure = (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
			}
		}
		if (failure != null) {
			// the limits that did decide keep nothing for a request that is not let
			// through
			reservations.forEach(RateLimitReservation::giveBackAsync);
			throw failure;
		}
		return reservations;
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
