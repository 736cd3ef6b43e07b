package io.github.redkit.idempotency.internal;

import java.util.Set;

import org.springframework.http.HttpMethod;
import org.springframework.web.util.pattern.PathPattern;

/**
 * Requests answered once per {@code Idempotency-Key}: those whose path matches and whose
 * method is listed.
 *
 * @param path the path pattern
 * @param methods the methods, never empty
 * @param required whether a request without the key is refused ({@code 400}) rather than
 * run without idempotency
 */
public record IdempotencyKeyRoute(PathPattern path, Set<HttpMethod> methods, boolean required) {

	/**
	 * Copies the methods.
	 * @param path the path pattern
	 * @param methods the methods
	 * @param required whether the key is required
	 */
	public IdempotencyKeyRoute {
		methods = Set.copyOf(methods);
		if (methods.isEmpty()) {
			throw new IllegalArgumentException("methods must not be empty");
		}
	}

}
