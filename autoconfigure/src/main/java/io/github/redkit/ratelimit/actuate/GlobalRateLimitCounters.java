package io.github.redkit.ratelimit.actuate;

import java.util.List;

import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitUsage;

/**
 * Where the limits marked global count, for the endpoint's {@code ratelimits} section to
 * read and reset them there instead of in their own keys. Contributed by whatever counts
 * them across regions.
 */
public interface GlobalRateLimitCounters {

	/**
	 * Whether a limit counts here.
	 * @param limit the limit's name
	 * @return {@code true} for a limit marked global
	 */
	boolean covers(String limit);

	/**
	 * An identifier's usage of a global limit, per window.
	 * @param limit the limit's name
	 * @param policy the limit's policy
	 * @param key the identifier
	 * @return the usage of each of the policy's windows
	 */
	List<RateLimitUsage.Window> usage(String limit, RateLimitPolicy policy, String key);

	/**
	 * Resets an identifier's counters of a global limit.
	 * @param limit the limit's name
	 * @param policy the limit's policy
	 * @param key the identifier
	 * @return whether there were counters
	 */
	boolean reset(String limit, RateLimitPolicy policy, String key);

}
