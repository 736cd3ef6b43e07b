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
 */
public record RateLimitRoute(PathPattern path, Set<HttpMethod> methods, String limitName, RateLimitRouteKey key,
		int cost) {

	/**
	 * Copies the methods and checks the cost.
	 * @param path the path pattern
	 * @param methods the methods
	 * @param limitName the named limit
	 * @param key who a request is counted for
	 * @param cost permits each request takes
	 */
	public RateLimitRoute {
		methods = Set.copyOf(methods);
		if (cost < 1) {
			throw new IllegalArgumentException("cost must be at least 1 (was " + cost + ")");
		}
	}

}
