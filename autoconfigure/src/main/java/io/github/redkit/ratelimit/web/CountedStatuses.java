package io.github.redkit.ratelimit.web;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The HTTP statuses whose responses count against a route's limit, e.g. {@code 401},
 * {@code 403} or a class such as {@code 5xx}: the permits are taken before the handler
 * runs, and a request answered with another status gives them back. Empty: every response
 * counts.
 *
 * @param codes the statuses named one by one
 * @param classes the classes named (4 for {@code 4xx})
 */
public record CountedStatuses(Set<Integer> codes, Set<Integer> classes) {

	/** Every response counts. */
	public static final CountedStatuses ALL = new CountedStatuses(Set.of(), Set.of());

	/**
	 * Copies the sets.
	 * @param codes the statuses named one by one
	 * @param classes the classes named
	 */
	public CountedStatuses {
		codes = Set.copyOf(codes);
		classes = Set.copyOf(classes);
	}

	/**
	 * Reads statuses such as {@code 401}, {@code 403} and {@code 5xx}.
	 * @param statuses the statuses, each a code from 100 to 599 or a class from 1xx to
	 * 5xx
	 * @return the statuses; {@link #ALL} when none is given
	 * @throws IllegalArgumentException naming the first malformed status
	 */
	public static CountedStatuses of(List<String> statuses) {
		Set<Integer> codes = new TreeSet<>();
		Set<Integer> classes = new TreeSet<>();
		for (String status : statuses) {
			String text = status.strip().toLowerCase(Locale.ROOT);
			if (text.matches("[1-5]xx")) {
				classes.add(text.charAt(0) - '0');
			}
			else if (text.matches("[1-5][0-9][0-9]")) {
				codes.add(Integer.parseInt(text));
			}
			else {
				throw new IllegalArgumentException(
						"'" + status + "' is not an HTTP status (a code from 100 to 599, or a class such as 4xx)");
			}
		}
		return new CountedStatuses(codes, classes);
	}

	/**
	 * Whether a response with this status counts.
	 * @param status the response's status
	 * @return {@code true} when it counts
	 */
	public boolean counts(int status) {
		return all() || this.codes.contains(status) || this.classes.contains(status / 100);
	}

	/**
	 * Whether every response counts, so that nothing need be settled after the handler.
	 * @return {@code true} when no status is named
	 */
	public boolean all() {
		return this.codes.isEmpty() && this.classes.isEmpty();
	}

}
