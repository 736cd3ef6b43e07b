package io.github.redkit.ratelimit.web;

import java.util.Set;

import org.springframework.http.HttpMethod;
import org.springframework.web.util.pattern.PathPattern;

/**
 * Requests that take permits of a named limit without an annotation: those whose path
 * matches and whose method is listed (any method when none is).
 *
 * @param path the path pattern
 * @param methods the methods; empty for every method
 * @param limitName the named limit
 * @param key who a request is counted for
 * @param cost permits each request takes, at least 1
 * @param counted the statuses whose responses count; another status gives the permits
 * back
 */
public record RateLimitRoute(PathPattern path, Set<HttpMethod> methods, String limitName, RateLimitRouteKey key,
		int cost, CountedStatuses counted) {

	/**
	 * Copies the methods and checks the cost.
	 * @param path the path pattern
	 * @param methods the methods
	 * @param limitName the named limit
	 * @param key who a request is counted for
	 * @param cost permits each request takes
	 * @param counted the statuses whose responses count
	 */
	public RateLimitRoute {
		methods = Set.copyOf(methods);
		if (cost < 1) {
			throw new IllegalArgumentException("cost must be at least 1 (was " + cost + ")");
		}
	}

	/**
	 * A route whose every response counts.
	 * @param path the path pattern
	 * @param methods the methods
	 * @param limitName the named limit
	 * @param key who a request is counted for
	 * @param cost permits each request takes
	 */
	public RateLimitRoute(PathPattern path, Set<HttpMethod> methods, String limitName, RateLimitRouteKey key,
			int cost) {
		this(path, methods, limitName, key, cost, CountedStatuses.ALL);
	}

}
