package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.List;

/**
 * One call on a limit, as a {@link RateLimitDecider} gets it: what it decides and the
 * numbers every decision script reads.
 *
 * @param limitName the limit's name
 * @param policy its policy
 * @param identifiers the identifiers the call counts against, each checked not empty
 * @param cost the permits the call takes
 * @param numbers the cost, then limit and period (ms) of each window, as little-endian
 * doubles
 * @param numbersFormat the {@code struct} format that reads {@code numbers}
 * @param timeout how long the decision may wait for Redis
 */
public record RateLimitCall(String limitName, RateLimitPolicy policy, List<String> identifiers, int cost,
		byte[] numbers, byte[] numbersFormat, Duration timeout) {

}
