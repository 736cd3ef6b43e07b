package io.github.redkit.autoconfigure;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpMethod;
import org.springframework.util.StringUtils;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * Reads the path and the methods of a configured web route, failing start-up with the
 * name of the property that is wrong.
 */
public final class RoutePatterns {

	private RoutePatterns() {
	}

	/**
	 * A route's path pattern.
	 * @param property the route's property, such as
	 * {@code redkit.rate-limit.web.routes[0]}
	 * @param path the configured path
	 * @param example a path to name when none is configured
	 * @return the pattern
	 */
	public static PathPattern path(String property, @Nullable String path, String example) {
		if (!StringUtils.hasText(path)) {
			throw new IllegalArgumentException(property + ".path is required, e.g. " + example);
		}
		try {
			return PathPatternParser.defaultInstance.parse(path);
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException(property + ".path is not a path pattern: " + ex.getMessage(), ex);
		}
	}

	/**
	 * A route's methods.
	 * @param property the route's property
	 * @param methods the configured methods, in any case
	 * @param allowed the methods a route may name, upper case
	 * @return the methods
	 */
	public static Set<HttpMethod> methods(String property, List<String> methods, Set<String> allowed) {
		Set<HttpMethod> parsed = new LinkedHashSet<>();
		for (String method : methods) {
			String name = method.trim().toUpperCase(Locale.ROOT);
			if (!allowed.contains(name)) {
				throw new IllegalArgumentException(
						property + ".methods has '" + method + "', which is not one of " + allowed);
			}
			parsed.add(HttpMethod.valueOf(name));
		}
		return parsed;
	}

}
