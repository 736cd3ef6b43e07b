package io.github.redkit.resilience4j.autoconfigure;

import org.jspecify.annotations.Nullable;

/**
 * The Redkit limit and identifier a Resilience4j instance is bound to, checked against
 * its properties.
 *
 * @param limit the Redkit limit
 * @param key the identifier
 * @param property the properties' prefix, for messages
 */
record InstanceBinding(String limit, String key, String property) {

	/**
	 * Reads and checks an instance's properties.
	 * @param prefix {@code redkit.resilience4j.rate-limiters} or {@code ...bulkheads}
	 * @param instance the Resilience4j instance name
	 * @param properties its properties
	 * @return the binding
	 * @throws IllegalArgumentException naming the property that is blank
	 */
	static InstanceBinding of(String prefix, String instance, Resilience4jProperties.Instance properties) {
		String property = prefix + "." + instance;
		return new InstanceBinding(orName(properties.getLimit(), instance, property + ".limit"),
				orName(properties.getKey(), instance, property + ".key"), property);
	}

	private static String orName(@Nullable String value, String instance, String property) {
		if (value == null) {
			return instance;
		}
		if (value.isBlank()) {
			throw new IllegalArgumentException(property + " must not be blank (unset, it is the instance's name)");
		}
		return value;
	}

	/**
	 * An error about this binding, naming its properties.
	 * @param ex what the Resilience4j instance refused
	 * @return the error to fail start-up with
	 */
	IllegalArgumentException invalid(IllegalArgumentException ex) {
		// its message is the whole story: the cause would only hide the property's name
		// from a failure analysis that reports the root cause
		return new IllegalArgumentException(this.property + ": " + ex.getMessage());
	}

}
