package io.github.redkit.ratelimit.web;

import java.net.URI;
import java.util.List;
import java.util.Map;

import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitExceededException;
import io.github.redkit.ratelimit.RateLimitReservation;
import io.github.redkit.ratelimit.RateLimiterUnavailableException;
import io.github.redkit.ratelimit.ReactiveRateLimiter;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Rate-limits WebFlux routes without annotations: the first {@link RateLimitRoute} that
 * matches a request takes its permits through the {@link ReactiveRateLimiter} before any
 * handler runs. An allowed request carries {@code RateLimit} and
 * {@code RateLimit-Policy}; a refused one is answered as
 * {@link RateLimitExceptionHandler} answers a refused {@code @RateLimited} call
 * ({@code 429}, {@code Retry-After}, the fields and the draft's problem type), and one
 * that cannot be decided while the failure mode is {@code deny} with its {@code 503}. A
 * route that counts only some statuses gives the permits of any other answer back when
 * the response commits.
 */
public class RateLimitRouteFilter implements WebFilter, Ordered {

	/**
	 * The default order: after Spring Security's filter chain ({@code -100}), so that
	 * {@code principal} keys see the authenticated user.
	 */
	public static final int DEFAULT_ORDER = 0;

	private static final ResolvableType PROBLEM = ResolvableType.forClass(ProblemDetail.class);

	private final ReactiveRateLimiter rateLimiter;

	private final List<RateLimitRoute> routes;

	private final List<HttpMessageWriter<?>> writers;

	private final int order;

	/**
	 * Creates a filter.
	 * @param rateLimiter decides
	 * @param routes the routes, the first match wins
	 * @param writers writes the problem details (the application's codecs, so that they
	 * read as the handlers' do)
	 * @param order where the filter runs among the application's, {@link #DEFAULT_ORDER}
	 * by default
	 */
	public RateLimitRouteFilter(ReactiveRateLimiter rateLimiter, List<RateLimitRoute> routes,
			List<HttpMessageWriter<?>> writers, int order) {
		this.rateLimiter = rateLimiter;
		this.routes = List.copyOf(routes);
		this.writers = List.copyOf(writers);
		this.order = order;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		RateLimitRoute route = route(exchange.getRequest());
		if (route == null) {
			return chain.filter(exchange);
		}
		return route.key()
			.resolve(exchange)
			.flatMap((keys) -> decide(exchange, chain, route, keys))
			.onErrorResume(RateLimiterUnavailableException.class,
					(ex) -> write(exchange, RateLimitExceptionHandler.unavailable(ex)));
	}

	private Mono<Void> decide(ServerWebExchange exchange, WebFilterChain chain, RateLimitRoute route,
			List<String> keys) {
		if (route.counted().all()) {
			return this.rateLimiter.tryAcquire(route.limitName(), keys, route.cost())
				.flatMap((decision) -> admit(exchange, chain, route, keys, decision));
		}
		return this.rateLimiter.reserve(route.limitName(), keys, route.cost()).flatMap((reservation) -> {
			settleOnCommit(exchange, route, reservation);
			return admit(exchange, chain, route, keys, reservation.decision());
		});
	}

	/**
	 * Gives the permits back when the response's status does not count: read when the
	 * response is committed, so that an error answered by the application's error
	 * handling is judged by the status it got. A response never committed keeps them.
	 */
	private static void settleOnCommit(ServerWebExchange exchange, RateLimitRoute route,
			RateLimitReservation reservation) {
		if (!reservation.allowed()) {
			return;
		}
		ServerHttpResponse response = exchange.getResponse();
		response.beforeCommit(() -> {
			HttpStatusCode status = response.getStatusCode();
			if (!route.counted().counts((status != null) ? status.value() : 200)) {
				reservation.giveBackAsync();
			}
			return Mono.empty();
		});
	}

	private Mono<Void> admit(ServerWebExchange exchange, WebFilterChain chain, RateLimitRoute route, List<String> keys,
			RateLimitDecision decision) {
		List<String> partition = route.key().shared() ? List.of() : keys;
		if (!decision.allowed()) {
			return write(exchange, RateLimitExceptionHandler.tooManyRequests(
					new RateLimitExceededException(route.limitName(), decision.policy(), decision, partition)));
		}
		ServerHttpResponse response = exchange.getResponse();
		RateLimitHeaders.set(route.limitName(), decision.policy(), decision, partition, response.getHeaders()::set);
		return chain.filter(exchange);
	}

	private @Nullable RateLimitRoute route(ServerHttpRequest request) {
		for (RateLimitRoute route : this.routes) {
			if ((route.methods().isEmpty() || route.methods().contains(request.getMethod()))
					&& route.path().matches(request.getPath().pathWithinApplication())) {
				return route;
			}
		}
		return null;
	}

	@SuppressWarnings("unchecked")
	private Mono<Void> write(ServerWebExchange exchange, ResponseEntity<ProblemDetail> answer) {
		ServerHttpResponse response = exchange.getResponse();
		response.setStatusCode(answer.getStatusCode());
		response.getHeaders().putAll(answer.getHeaders());
		ProblemDetail problem = answer.getBody();
		if (problem == null) {
			return response.setComplete();
		}
		if (problem.getInstance() == null) {
			// as WebFlux's handlers fill it in
			problem.setInstance(URI.create(exchange.getRequest().getPath().value()));
		}
		for (HttpMessageWriter<?> writer : this.writers) {
			if (writer.canWrite(PROBLEM, MediaType.APPLICATION_PROBLEM_JSON)) {
				return ((HttpMessageWriter<ProblemDetail>) writer).write(Mono.just(problem), PROBLEM,
						MediaType.APPLICATION_PROBLEM_JSON, response, Map.of());
			}
		}
		return response.setComplete();
	}

	@Override
	public int getOrder() {
		return this.order;
	}

}
