package io.github.redkit.ratelimit.web;

import java.net.InetSocketAddress;
import java.security.Principal;
import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.util.StringUtils;
import org.springframework.web.server.ServerWebExchange;

/**
 * Who a {@link RateLimitRoute}'s request is counted for, as written in
 * {@code redkit.rate-limit.web.routes[n].key}: {@code ip} (the client address, as
 * {@code ServerHttpRequest#getRemoteAddress()} sees it: behind a proxy, configure
 * {@code server.forward-headers-strategy}), {@code header:<name>} (the first value of a
 * request header), {@code principal} (the authenticated name) or {@code none} (one
 * partition shared by every request). A request without the identifier is counted in one
 * partition of its own kind shared by every such request, so leaving the identifier out
 * never escapes the limit. The value from the request is only ever a part of a Redis key,
 * which the keyspace escapes.
 */
public final class RateLimitRouteKey {

	// the partition @RateLimited uses for a limit without keys
	private static final List<String> SHARED = List.of("all");

	private final String kind;

	private final String header;

	// what an identified request's identifier starts with, built once
	private final String prefix;

	private RateLimitRouteKey(String kind, String header) {
		this.kind = kind;
		this.header = header;
		this.prefix = kind.equals("header") ? "header:" + header.toLowerCase(Locale.ROOT) + ":" : kind + ":";
	}

	/**
	 * Reads a key resolver.
	 * @param text {@code ip}, {@code header:<name>}, {@code principal} or {@code none}
	 * @return the resolver
	 * @throws IllegalArgumentException for anything else
	 */
	public static RateLimitRouteKey of(String text) {
		String trimmed = text.trim();
		String lower = trimmed.toLowerCase(Locale.ROOT);
		if (lower.equals("ip") || lower.equals("principal") || lower.equals("none")) {
			return new RateLimitRouteKey(lower, "");
		}
		if (lower.startsWith("header:")) {
			String name = trimmed.substring("header:".length()).trim();
			if (StringUtils.hasText(name) && name.chars().allMatch(RateLimitRouteKey::isTokenChar)) {
				return new RateLimitRouteKey("header", name);
			}
		}
		throw new IllegalArgumentException("must be 'ip', 'header:<name>', 'principal' or 'none' (was '" + text + "')");
	}

	/**
	 * Whether every request shares one partition, so that the response's fields carry no
	 * partition key.
	 * @return {@code true} for {@code none}
	 */
	public boolean shared() {
		return this.kind.equals("none");
	}

	/**
	 * The identifiers a request is counted under.
	 * @param exchange the request
	 * @return one identifier, e.g. {@code ip:203.0.113.7}; the kind alone (e.g.
	 * {@code principal}) for a request without it
	 */
	public Mono<List<String>> resolve(ServerWebExchange exchange) {
		return switch (this.kind) {
			case "none" -> Mono.just(SHARED);
			case "ip" -> Mono.just(identified(address(exchange)));
			case "header" -> Mono.just(identified(exchange.getRequest().getHeaders().getFirst(this.header)));
			default ->
				exchange.getPrincipal().map(Principal::getName).map(this::identified).defaultIfEmpty(identified(null));
		};
	}

	private List<String> identified(@Nullable String value) {
		if (!StringUtils.hasLength(value)) {
			// without a colon: no identified request can share this partition
			return List.of(this.kind);
		}
		return List.of(this.prefix + value);
	}

	private static @Nullable String address(ServerWebExchange exchange) {
		InetSocketAddress remote = exchange.getRequest().getRemoteAddress();
		return (remote != null && remote.getAddress() != null) ? remote.getAddress().getHostAddress() : null;
	}

	private static boolean isTokenChar(int c) {
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
				|| "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
	}

	@Override
	public String toString() {
		return this.kind.equals("header") ? "header:" + this.header : this.kind;
	}

}
