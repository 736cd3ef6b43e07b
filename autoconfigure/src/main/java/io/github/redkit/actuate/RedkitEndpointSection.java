package io.github.redkit.actuate;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A section a capability contributes to the {@code redkit} endpoint from its own
 * {@code …actuate} package, next to the keys and meters it reads, so that the endpoint
 * shows the capability without knowing it. The endpoint lists the sections in their bean
 * order ({@link org.springframework.core.Ordered}) and hands each request under
 * {@code /actuator/redkit/{name}} to the section of that name; an operation a section
 * does not answer is {@code null} (a {@code 404}). Write operations exist only while the
 * endpoint's access is {@code unrestricted}.
 */
public interface RedkitEndpointSection {

	/**
	 * The section's name in the endpoint's paths and in the summary.
	 * @return a name unlike every other section's
	 */
	String name();

	/**
	 * The capability the section belongs to, as the summary lists it.
	 * @return the capability's name, or {@code null} for a section of no one capability
	 */
	@Nullable String capability();

	/**
	 * What the section adds to the endpoint's summary, such as what is configured.
	 * @return entries keyed by names unlike every other section's, none by default
	 */
	default Map<String, Object> summary() {
		return Map.of();
	}

	/**
	 * {@code GET /actuator/redkit/{name}}: one page of the section.
	 * @param cursor where the previous page stopped, {@code null} for the first
	 * @param count how many entries at most, {@code null} for the section's default
	 * @return the page, rendered as JSON, or {@code null} when the section has none
	 */
	default @Nullable Object read(@Nullable String cursor, @Nullable Integer count) {
		return null;
	}

	/**
	 * {@code GET /actuator/redkit/{name}/{path…}}: one entry of the section.
	 * @param path the path's segments after the section's name, at least one
	 * @param offset entries to skip, when the entry is a list
	 * @param count entries at most, when the entry is a list
	 * @return the entry, or {@code null} when the section has none at that path
	 */
	default @Nullable Object read(List<String> path, @Nullable Integer offset, @Nullable Integer count) {
		return null;
	}

	/**
	 * {@code POST /actuator/redkit/{name}/{path…}}: acts on an entry.
	 * @param path the path's segments after the section's name
	 * @param id what the body names, if anything
	 * @param operator who asks, for the log
	 * @return the outcome, or {@code null} when the section has no such operation
	 */
	default @Nullable Object write(List<String> path, @Nullable String id, String operator) {
		return null;
	}

	/**
	 * {@code DELETE /actuator/redkit/{name}/{path…}}: deletes or resets an entry.
	 * @param path the path's segments after the section's name, at least one
	 * @param operator who asks, for the log
	 * @return the outcome, or {@code null} when the section has no such operation
	 */
	default @Nullable Object delete(List<String> path, String operator) {
		return null;
	}

}
