package io.github.redkit.autoconfigure.ratelimit;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.github.redkit.autoconfigure.RoutePatterns;
import io.github.redkit.ratelimit.web.CountedStatuses;
import io.github.redkit.ratelimit.web.RateLimitRoute;
import io.github.redkit.ratelimit.web.RateLimitRouteKey;

import org.springframework.http.HttpMethod;
import org.springframework.util.StringUtils;
import org.springframework.web.util.pattern.PathPattern;

/**
 * Reads {@code redkit.rate-limit.web.routes}, failing on the first malformed route with
 * the name of its property.
 */
final class RateLimitRoutesMapper {

	private static final String PREFIX = "redkit.rate-limit.web.routes";

	private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS",
			"TRACE");

	private RateLimitRoutesMapper() {
	}

	static List<RateLimitRoute> routes(RateLimitProperties properties) {
		List<RateLimitRoute> routes = new ArrayList<>();
		List<RateLimitProperties.Route> configured = properties.getWeb().getRoutes();
		for (int i = 0; i < configured.size(); i++) {
			routes.add(route(configured.get(i), PREFIX + "[" + i + "]", properties));
		}
		return routes;
	}

	private static RateLimitRoute route(RateLimitProperties.Route route, String property,
			RateLimitProperties properties) {
		PathPattern pattern = RoutePatterns.path(property, route.getPath(), "/api/**");
		String limit = route.getLimit();
		if (!StringUtils.hasText(limit)) {
			throw new IllegalArgumentException(property + ".limit is required: a limit under redkit.rate-limit.limits");
		}
		if (!properties.getLimits().containsKey(limit)) {
			throw new IllegalArgumentException(
					property + ".limit '" + limit + "' is not configured under redkit.rate-limit.limits (known: "
							+ properties.getLimits().keySet() + ")");
		}
		RateLimitRouteKey key;
		try {
			key = RateLimitRouteKey.of(route.getKey());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(property + ".key " + ex.getMessage(), ex);
		}
		Set<HttpMethod> methods = RoutePatterns.methods(property, route.getMethods(), METHODS);
		if (route.getCost() < 1) {
			throw new IllegalArgumentException(property + ".cost must be at least 1 (was " + route.getCost() + ")");
		}
		CountedStatuses counted;
		try {
			counted = CountedStatuses.of(route.getCountStatuses());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(property + ".count-statuses: " + ex.getMessage(), ex);
		}
		return new RateLimitRoute(pattern, methods, limit, key, route.getCost(), counted);
	}

}
