package io.github.redkit.actuate;

import org.jspecify.annotations.Nullable;

/**
 * A section a capability contributes to the {@code redkit} endpoint from its own package:
 * read at {@code /actuator/redkit/{name}} and listed in the summary, so that the endpoint
 * shows the capability without knowing it. Sections are shown in their bean order.
 */
public interface RedkitEndpointSection {

	/**
	 * The section's name in the endpoint's paths and in the summary.
	 * @return a name unlike every other section's
	 */
	String name();

	/**
	 * The capability the section belongs to, as the summary lists it.
	 * @return the capability's name
	 */
	String capability();

	/**
	 * One page of the section.
	 * @param cursor where the previous page stopped, {@code null} for the first
	 * @param count how many entries at most, {@code null} for the section's default
	 * @return the page, rendered as JSON
	 */
	Object read(@Nullable String cursor, @Nullable Integer count);

}
