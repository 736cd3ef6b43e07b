package io.github.redkit.testsupport;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/**
 * The check of a rate limit's bound over every interval: the most allowed calls in any
 * interval {@code [t, t + period)}, from the times (on Redis' clock, in ms) the calls
 * were decided at. Checking calendar windows only would miss a burst that straddles two.
 */
public final class BusiestInterval {

	private BusiestInterval() {
	}

	/**
	 * The most times that fall in one interval of {@code periodMillis}, wherever it
	 * starts.
	 * @param times the times the allowed calls were decided at, in ms, in any order
	 * @param periodMillis the interval's length, in ms
	 * @return the most times in one interval
	 */
	public static int of(Collection<Double> times, double periodMillis) {
		List<Double> sorted = new ArrayList<>(times);
		Collections.sort(sorted);
		int busiest = 0;
		for (int i = 0, j = 0; i < sorted.size(); i++) {
			while (j < sorted.size() && sorted.get(j) < sorted.get(i) + periodMillis) {
				j++;
			}
			busiest = Math.max(busiest, j - i);
		}
		return busiest;
	}

}
