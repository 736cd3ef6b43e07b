package io.github.redkit.autoconfigure.idempotency;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.github.redkit.autoconfigure.RoutePatterns;
import io.github.redkit.autoconfigure.DurationChecks;
import io.github.redkit.idempotency.internal.HttpIdempotency;
import io.github.redkit.idempotency.internal.IdempotencySettings;
import io.github.redkit.idempotency.internal.IdempotencyKeyRoute;
import io.github.redkit.idempotency.web.IdempotencyKeyScopeResolver;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpMethod;
import org.springframework.util.StringUtils;
import org.springframework.web.util.pattern.PathPattern;

/**
 * Turns {@link IdempotencyProperties} into {@link IdempotencySettings}, once at start-up;
 * a value that cannot work fails start-up with a message naming its property.
 */
final class IdempotencyPropertiesMapper {

	private static final String PREFIX = "redkit.idempotency";

	// the methods that change something: a GET is idempotent already
	private static final Set<String> METHODS = Set.of("POST", "PUT", "PATCH", "DELETE");

	private IdempotencyPropertiesMapper() {
	}

	static IdempotencySettings settings(IdempotencyProperties properties) {
		DurationChecks.positive(properties.getTtl(), PREFIX + ".ttl");
		DurationChecks.positive(properties.getInProgressLease(), PREFIX + ".in-progress-lease");
		DurationChecks.positive(properties.getTimeout(), PREFIX + ".timeout");
		return new IdempotencySettings(properties.getTtl(), properties.getInProgressLease(), properties.getTimeout());
	}

	static HttpIdempotency http(IdempotencyProperties properties, JsonMapper json) {
		IdempotencyProperties.Http http = properties.getHttp();
		String prefix = PREFIX + ".http";
		DurationChecks.positive(http.getTtl(), prefix + ".ttl");
		DurationChecks.positive(http.getLease(), prefix + ".lease");
		if (!StringUtils.hasText(http.getHeader())) {
			throw new IllegalArgumentException(prefix + ".header must name a header");
		}
		if (http.getMaxKeyLength() < 1) {
			throw new IllegalArgumentException(
					prefix + ".max-key-length must be at least 1 (was " + http.getMaxKeyLength() + ")");
		}
		if (http.getMaxRequestSize().isNegative() || http.getMaxResponseSize().isNegative()) {
			throw new IllegalArgumentException(
					prefix + ".max-request-size and " + prefix + ".max-response-size must not be negative");
		}
		List<IdempotencyKeyRoute> routes = new ArrayList<>();
		for (int i = 0; i < http.getRoutes().size(); i++) {
			routes.add(route(http.getRoutes().get(i), prefix + ".routes[" + i + "]"));
		}
		return new HttpIdempotency(routes, new HttpIdempotency.Limits(http.getHeader(), http.getTtl(), http.getLease(),
				http.getMaxKeyLength(), http.getMaxRequestSize().toBytes(), http.getMaxResponseSize().toBytes()), json);
	}

	// the application's resolver, then what the properties say for a caller it finds no
	// scope for
	static IdempotencyKeyScopeResolver scopes(IdempotencyProperties properties, IdempotencyKeyScopeResolver resolver) {
		return switch (properties.getHttp().getAnonymous()) {
			case REFUSE -> resolver;
			case CLIENT_ADDRESS -> resolver.orElse(IdempotencyKeyScopeResolver.clientAddress());
			case SHARED -> resolver.orElse(IdempotencyKeyScopeResolver.shared());
		};
	}

	private static IdempotencyKeyRoute route(IdempotencyProperties.Route route, String property) {
		PathPattern pattern = RoutePatterns.path(property, route.getPath(), "/payments/**");
		Set<HttpMethod> methods = RoutePatterns.methods(property, route.getMethods(), METHODS);
		if (methods.isEmpty()) {
			throw new IllegalArgumentException(property + ".methods must name at least one method");
		}
		return new IdempotencyKeyRoute(pattern, methods, route.isRequired());
	}

}
