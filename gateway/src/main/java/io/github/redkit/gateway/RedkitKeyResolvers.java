package io.github.redkit.gateway;

import java.util.ArrayList;
import java.util.List;

import reactor.core.publisher.Flux;

import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;

/**
 * Several identifiers for one route: {@link #all(KeyResolver...)} resolves every one of
 * its resolvers and hands them to {@link RedkitGatewayRateLimiter} as one key, which
 * takes the call's permits for every identifier or for none, in one round trip.
 */
public final class RedkitKeyResolvers {

	// a NUL cannot reach a key from an HTTP request (RFC 9110 forbids it in field values
	// and a URI cannot hold it), so a client cannot forge several identifiers
	private static final String PREFIX = "\u0000redkit-keys\u0000";

	private static final char SEPARATOR = '\u0000';

	private RedkitKeyResolvers() {
	}

	/**
	 * A key resolver whose key stands for the keys of all {@code resolvers}; empty (the
	 * gateway's empty-key answer) when any of them is empty.
	 * @param resolvers the resolvers, e.g. the user's and the client address's
	 * @return the key resolver
	 */
	public static KeyResolver all(KeyResolver... resolvers) {
		List<KeyResolver> all = List.of(resolvers);
		return (exchange) -> Flux.fromIterable(all)
			.concatMap((resolver) -> resolver.resolve(exchange).map(List::of).defaultIfEmpty(List.of()))
			.collectList()
			.filter((keys) -> keys.stream().noneMatch(List::isEmpty))
			.map((keys) -> encode(keys.stream().map((key) -> key.get(0)).toList()));
	}

	static String encode(List<String> keys) {
		StringBuilder encoded = new StringBuilder(PREFIX);
		for (int i = 0; i < keys.size(); i++) {
			if (i > 0) {
				encoded.append(SEPARATOR);
			}
			// a key that holds a NUL keeps it, escaped, as part of itself
			encoded.append(keys.get(i).replace("\\", "\\\\").replace("\u0000", "\\0"));
		}
		return encoded.toString();
	}

	/**
	 * The identifiers a resolved key stands for: those of an {@link #all} key, or the key
	 * itself.
	 * @param key the key the gateway resolved
	 * @return the identifiers
	 */
	static List<String> decode(String key) {
		if (!key.startsWith(PREFIX)) {
			return List.of(key);
		}
		List<String> keys = new ArrayList<>();
		StringBuilder current = new StringBuilder();
		String body = key.substring(PREFIX.length());
		for (int i = 0; i < body.length(); i++) {
			char c = body.charAt(i);
			if (c == '\\' && i + 1 < body.length()) {
				char next = body.charAt(++i);
				current.append((next == '0') ? SEPARATOR : next);
			}
			else if (c == SEPARATOR) {
				keys.add(current.toString());
				current.setLength(0);
			}
			else {
				current.append(c);
			}
		}
		keys.add(current.toString());
		return List.copyOf(keys);
	}

}
