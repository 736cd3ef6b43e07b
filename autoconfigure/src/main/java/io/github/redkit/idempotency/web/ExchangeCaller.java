package io.github.redkit.idempotency.web;

import java.net.InetSocketAddress;
import java.security.Principal;

import org.jspecify.annotations.Nullable;

import org.springframework.web.server.ServerWebExchange;

/**
 * A WebFlux request's sender, as a scope resolver sees it.
 */
final class ExchangeCaller implements IdempotencyKeyScopeResolver.Caller {

	private final ServerWebExchange exchange;

	private final @Nullable Principal principal;

	ExchangeCaller(ServerWebExchange exchange, @Nullable Principal principal) {
		this.exchange = exchange;
		this.principal = principal;
	}

	@Override
	public @Nullable Principal principal() {
		return this.principal;
	}

	@Override
	public @Nullable String header(String name) {
		return this.exchange.getRequest().getHeaders().getFirst(name);
	}

	@Override
	public @Nullable String remoteAddress() {
		InetSocketAddress address = this.exchange.getRequest().getRemoteAddress();
		if (address == null) {
			return null;
		}
		return (address.getAddress() != null) ? address.getAddress().getHostAddress() : address.getHostString();
	}

	@Override
	public Object request() {
		return this.exchange;
	}

}
