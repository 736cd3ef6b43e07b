package io.github.redkit.idempotency.web;

import java.security.Principal;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * A servlet request's sender, as a scope resolver sees it.
 */
final class ServletCaller implements IdempotencyKeyScopeResolver.Caller {

	private final HttpServletRequest request;

	ServletCaller(HttpServletRequest request) {
		this.request = request;
	}

	@Override
	public @Nullable Principal principal() {
		return this.request.getUserPrincipal();
	}

	@Override
	public @Nullable String header(String name) {
		return this.request.getHeader(name);
	}

	@Override
	public @Nullable String remoteAddress() {
		return this.request.getRemoteAddr();
	}

	@Override
	public Object request() {
		return this.request;
	}

}
