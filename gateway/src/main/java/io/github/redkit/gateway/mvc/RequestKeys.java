package io.github.redkit.gateway.mvc;

import java.net.InetSocketAddress;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.springframework.util.StringUtils;
import org.springframework.web.servlet.function.ServerRequest;

/**
 * Who a Server MVC request is counted for: functions from a request to its identifiers,
 * as {@link RedkitRateLimitFilterFunctions} takes them. The forms a route's {@code keys}
 * argument names are those of {@code redkit.rate-limit.web.routes[n].key}: {@code ip}
 * (the client address, as the servlet container sees it: behind a proxy, configure
 * {@code server.forward-headers-strategy}), {@code header:<name>}, {@code principal},
 * {@code none} (one partition shared by every request), and {@code principal-or-ip}, the
 * default. A request without the identifier is counted in one partition of its own kind
 * shared by every such request, so leaving the identifier out never escapes the limit.
 */
public final class RequestKeys {

	/** The form of {@link #principalOrAddress()}, the default. */
	public static final String PRINCIPAL_OR_IP = "principal-or-ip";

	// the partition @RateLimited and the WebFlux route limits use for a limit without
	// keys
	private static final List<String> SHARED = List.of("all");

	private RequestKeys() {
	}

	/**
	 * The authenticated name, else the client address: a signed-in user is counted as
	 * themselves wherever they come from, anyone else by their address.
	 * @return the resolver
	 */
	public static Function<ServerRequest, List<String>> principalOrAddress() {
		return (request) -> {
			String name = request.principal().map(Principal::getName).orElse(null);
			return StringUtils.hasLength(name) ? List.of("principal:" + name) : identified("ip", address(request));
		};
	}

	/**
	 * The client address.
	 * @return the resolver
	 */
	public static Function<ServerRequest, List<String>> address() {
		return (request) -> identified("ip", address(request));
	}

	/**
	 * The authenticated name.
	 * @return the resolver
	 */
	public static Function<ServerRequest, List<String>> principal() {
		return (request) -> identified("principal", request.principal().map(Principal::getName).orElse(null));
	}

	/**
	 * The first value of a request header.
	 * @param name the header
	 * @return the resolver
	 */
	public static Function<ServerRequest, List<String>> header(String name) {
		String kind = "header:" + name.toLowerCase(Locale.ROOT);
		return (request) -> identified(kind, request.headers().firstHeader(name));
	}

	/**
	 * One partition shared by every request.
	 * @return the resolver
	 */
	public static Function<ServerRequest, List<String>> none() {
		return (request) -> SHARED;
	}

	/**
	 * The identifiers of every resolver, all of which must be under the limit: taken
	 * together or not at all, in one round trip.
	 * @param resolvers the resolvers, e.g. the user's and the tenant's
	 * @return the resolver
	 */
	@SafeVarargs
	public static Function<ServerRequest, List<String>> all(Function<ServerRequest, List<String>>... resolvers) {
		List<Function<ServerRequest, List<String>>> all = List.of(resolvers);
		return (request) -> {
			List<String> keys = new ArrayList<>();
			for (Function<ServerRequest, List<String>> resolver : all) {
				keys.addAll(resolver.apply(request));
			}
			return List.copyOf(keys);
		};
	}

	/**
	 * Reads the forms of a route's {@code keys} argument.
	 * @param forms {@code ip}, {@code header:<name>}, {@code principal}, {@code none} or
	 * {@code principal-or-ip}, one per identifier
	 * @return the resolver of every identifier
	 * @throws IllegalArgumentException for anything else, or no form at all
	 */
	public static Function<ServerRequest, List<String>> of(List<String> forms) {
		if (forms.isEmpty()) {
			throw new IllegalArgumentException("A rate-limited route needs at least one key");
		}
		List<Function<ServerRequest, List<String>>> resolvers = forms.stream().map(RequestKeys::of).toList();
		return (resolvers.size() == 1) ? resolvers.get(0) : all(resolvers.toArray(Function[]::new));
	}

	private static Function<ServerRequest, List<String>> of(String form) {
		String trimmed = form.trim();
		String lower = trimmed.toLowerCase(Locale.ROOT);
		switch (lower) {
			case "ip":
				return address();
			case "principal":
				return principal();
			case "none":
				return none();
			case PRINCIPAL_OR_IP:
				return principalOrAddress();
			default:
				if (lower.startsWith("header:")) {
					String name = trimmed.substring("header:".length()).trim();
					if (StringUtils.hasText(name) && name.chars().allMatch(RequestKeys::isTokenChar)) {
						return header(name);
					}
				}
				throw new IllegalArgumentException("A rate-limited route's key must be 'ip', 'header:<name>', "
						+ "'principal', 'none' or 'principal-or-ip' (was '" + form + "')");
		}
	}

	private static List<String> identified(String kind, @Nullable String value) {
		// without a colon after the kind: no identified request can share this partition
		return StringUtils.hasLength(value) ? List.of(kind + ":" + value) : List.of(kind);
	}

	private static @Nullable String address(ServerRequest request) {
		InetSocketAddress remote = request.remoteAddress().orElse(null);
		return (remote != null && remote.getAddress() != null) ? remote.getAddress().getHostAddress() : null;
	}

	private static boolean isTokenChar(int c) {
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
				|| "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
	}

}
