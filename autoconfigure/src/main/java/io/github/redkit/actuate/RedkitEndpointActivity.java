package io.github.redkit.actuate;

import java.util.List;
import java.util.Map;

/**
 * What a capability counts in the endpoint's {@code activity} section: the cumulative
 * counts of its meters, by the name its meters are tagged with and by outcome. A
 * capability declares it in {@code META-INF/spring.factories} under this interface's
 * name, next to its meters: the section keeps one entry per declaration, empty when the
 * capability is off or Micrometer is absent.
 */
public interface RedkitEndpointActivity {

	/**
	 * The entry's name in the {@code activity} section.
	 * @return the name, e.g. {@code rateLimits}
	 */
	String name();

	/**
	 * The tag that names a limit, lock or queue on the meters.
	 * @return the tag
	 */
	String nameTag();

	/**
	 * The meters whose counts add up, tagged with {@link #nameTag()} and {@code outcome}.
	 * @return the meters' names
	 */
	List<String> meters();

	/**
	 * The outcomes as the section shows them.
	 * @param counted the count of each recorded outcome of one name
	 * @return the counts shown, the recorded ones by default
	 */
	default Map<String, Long> outcomes(Map<String, Long> counted) {
		return counted;
	}

}
