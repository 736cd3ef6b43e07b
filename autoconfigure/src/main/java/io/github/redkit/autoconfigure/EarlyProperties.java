package io.github.redkit.autoconfigure;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Reads a capability's properties for the beans that exist before configuration
 * properties are bound: the advisors, which the auto-proxy creator needs early. The same
 * properties class, so the same defaults, bound straight from the environment; binding
 * the properties bean itself that early would keep it from being post-processed.
 */
public final class EarlyProperties {

	private EarlyProperties() {
	}

	/**
	 * Binds properties from the environment.
	 * @param <T> the properties type
	 * @param environment the environment
	 * @param prefix the properties' prefix, e.g. {@code redkit.lock}
	 * @param type the properties class
	 * @return the bound properties, with their defaults where nothing is set
	 */
	public static <T> T bind(Environment environment, String prefix, Class<T> type) {
		return Binder.get(environment).bindOrCreate(prefix, type);
	}

}
