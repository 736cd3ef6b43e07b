package io.github.redkit.ratelimit.actuate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redkit.actuate.RedkitEndpointActivity;
import io.github.redkit.ratelimit.internal.RateLimitMeters;

/**
 * Rate-limit decisions in the endpoint's activity, by limit: always {@code allowed},
 * {@code denied} and {@code failed} (failures count together whichever failure mode
 * applied).
 */
final class RateLimitActivity implements RedkitEndpointActivity {

	@Override
	public String name() {
		return "rateLimits";
	}

	@Override
	public String nameTag() {
		return "limit";
	}

	@Override
	public List<String> meters() {
		return List.of(RateLimitMeters.DECISIONS.name());
	}

	@Override
	public Map<String, Long> outcomes(Map<String, Long> counted) {
		Map<String, Long> three = new LinkedHashMap<>();
		three.put(RateLimitMeters.ALLOWED, counted.getOrDefault(RateLimitMeters.ALLOWED, 0L));
		three.put(RateLimitMeters.DENIED, counted.getOrDefault(RateLimitMeters.DENIED, 0L));
		three.put("failed",
				counted.getOrDefault(RateLimitMeters.FAILED_OPEN, 0L)
						+ counted.getOrDefault(RateLimitMeters.FAILED_CLOSED, 0L)
						+ counted.getOrDefault(RateLimitMeters.REPLAY_DROPPED, 0L));
		// decided on this instance while Redis was away (failure mode local), when any
		long local = counted.getOrDefault(RateLimitMeters.LOCAL_ALLOWED, 0L)
				+ counted.getOrDefault(RateLimitMeters.LOCAL_DENIED, 0L);
		if (local > 0) {
			three.put("local", local);
		}
		return three;
	}

}
