package io.github.redkit.sample;

import java.util.List;

/**
 * The most calls that fell in any one period, over every interval of that length and not
 * only the ones a test chose.
 */
final class BusiestPeriod {

	private BusiestPeriod() {
	}

	/**
	 * Counts the calls of the busiest period.
	 * @param times when each call was counted, in epoch milliseconds, sorted
	 * @param periodMillis the period's length
	 * @return the most calls in any half-open interval of that length
	 */
	static int of(List<Long> times, long periodMillis) {
		int busiest = 0;
		for (int i = 0, j = 0; i < times.size(); i++) {
			while (times.get(i) - times.get(j) >= periodMillis) {
				j++;
			}
			busiest = Math.max(busiest, i - j + 1);
		}
		return busiest;
	}

}
