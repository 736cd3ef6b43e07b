package io.github.redkit.ratelimit.samename.second;

import io.github.redkit.ratelimit.RateLimited;

/**
 * A service whose simple name is also used in another package, each with its own inline
 * limit.
 */
public class QuotaService {

	@RateLimited(limit = 1, period = "1h")
	public String check() {
		return "second";
	}

}
