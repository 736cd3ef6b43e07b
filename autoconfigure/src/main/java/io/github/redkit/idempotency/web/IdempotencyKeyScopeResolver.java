package io.github.redkit.idempotency.web;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.Principal;
import java.util.HexFormat;

import org.jspecify.annotations.Nullable;

/**
 * Whose key space a request's {@code Idempotency-Key} falls in, so that two callers' keys
 * never meet: the same key sent by two scopes is two keys. Declare a bean to replace the
 * default, {@link #principal()}; a request for which it finds no scope is refused with
 * {@code 403} unless {@code redkit.idempotency.http.anonymous} says otherwise. Used by
 * the Spring MVC and the WebFlux filter alike.
 */
@FunctionalInterface
public interface IdempotencyKeyScopeResolver {

	/**
	 * The scope of a request.
	 * @param caller what is known of who sent it
	 * @return its scope, {@code null} for none
	 */
	@Nullable IdempotencyKeyScope resolve(Caller caller);

	/**
	 * This resolver, or another where this one finds no scope.
	 * @param other asked when this one finds none
	 * @return the two, in turn
	 */
	default IdempotencyKeyScopeResolver orElse(IdempotencyKeyScopeResolver other) {
		return (caller) -> {
			IdempotencyKeyScope scope = resolve(caller);
			return (scope != null) ? scope : other.resolve(caller);
		};
	}

	/**
	 * The authenticated user ({@code getUserPrincipal()},
	 * {@code exchange.getPrincipal()}), none for an anonymous caller, Spring Security's
	 * anonymous authentication included.
	 * @return the resolver
	 */
	static IdempotencyKeyScopeResolver principal() {
		return (caller) -> {
			Principal principal = caller.principal();
			if (principal == null || isAnonymous(principal) || principal.getName() == null
					|| principal.getName().isEmpty()) {
				return null;
			}
			return IdempotencyKeyScope.user(principal.getName());
		};
	}

	/**
	 * The tenant a request header names (kind {@code tenant}). Use only a header the
	 * application trusts, one set or checked by its authentication or its gateway: a
	 * caller who may choose it may use another tenant's keys.
	 * @param header the header's name
	 * @return the resolver
	 */
	static IdempotencyKeyScopeResolver tenantHeader(String header) {
		return header("tenant", header);
	}

	/**
	 * The API key a request header carries (kind {@code api-key}), as its SHA-256 digest:
	 * the key itself is never written to Redis. Use it where the application checks the
	 * API key before the filter runs.
	 * @param header the header's name
	 * @return the resolver
	 */
	static IdempotencyKeyScopeResolver apiKeyHeader(String header) {
		checkHeader(header);
		return (caller) -> {
			String value = caller.header(header);
			return (value != null && !value.isBlank()) ? IdempotencyKeyScope.of("api-key", sha256(value.trim())) : null;
		};
	}

	/**
	 * The value of a request header, as a scope of the given kind.
	 * @param kind what the header names, e.g. {@code tenant}
	 * @param header the header's name
	 * @return the resolver
	 */
	static IdempotencyKeyScopeResolver header(String kind, String header) {
		IdempotencyKeyScope.checkKind(kind);
		checkHeader(header);
		return (caller) -> {
			String value = caller.header(header);
			return (value != null && !value.isBlank()) ? IdempotencyKeyScope.of(kind, value.trim()) : null;
		};
	}

	/**
	 * The client's IP address (kind {@code address}): the connection's peer, or the
	 * address a proxy forwarded when the application honours {@code Forwarded} headers
	 * ({@code server.forward-headers-strategy}). Callers behind one NAT share it.
	 * @return the resolver
	 */
	static IdempotencyKeyScopeResolver clientAddress() {
		return (caller) -> {
			String address = caller.remoteAddress();
			return (address != null && !address.isEmpty()) ? IdempotencyKeyScope.of("address", address) : null;
		};
	}

	/**
	 * One scope for every caller: their keys meet, so that a caller who guesses another's
	 * key gets its response. Only for applications whose callers cannot reach each
	 * other's keys by other means.
	 * @return the resolver
	 */
	static IdempotencyKeyScopeResolver shared() {
		return (caller) -> IdempotencyKeyScope.shared();
	}

	private static boolean isAnonymous(Principal principal) {
		for (Class<?> type = principal.getClass(); type != null; type = type.getSuperclass()) {
			if (type.getName().equals("org.springframework.security.authentication.AnonymousAuthenticationToken")) {
				return true;
			}
		}
		return false;
	}

	private static void checkHeader(String header) {
		if (header == null || header.isBlank()) {
			throw new IllegalArgumentException("header must name a header");
		}
	}

	private static String sha256(String value) {
		try {
			return HexFormat.of()
				.formatHex(MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * What the filters know of a request's sender when they ask for its scope.
	 */
	interface Caller {

		/**
		 * The authenticated user, as the server or Spring Security gives it.
		 * @return the principal, {@code null} for none
		 */
		@Nullable Principal principal();

		/**
		 * A request header.
		 * @param name the header's name
		 * @return its first value, {@code null} when absent
		 */
		@Nullable String header(String name);

		/**
		 * The client's IP address, as the server (or its forwarded-headers support) sees
		 * it.
		 * @return the address, {@code null} when unknown
		 */
		@Nullable String remoteAddress();

		/**
		 * The request itself, for a resolver that needs more.
		 * @return the {@code HttpServletRequest} on Spring MVC, the
		 * {@code ServerWebExchange} on WebFlux
		 */
		Object request();

	}

}
