package io.github.redkit.ratelimit.internal;

import java.util.List;

import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitUsage;
import io.github.redkit.ratelimit.RateLimitWindow;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * {@link RateLimitAlgorithm#FIXED_WINDOW}: per window a record of its period, the index
 * of the current calendar-aligned window and its count.
 */
final class FixedWindowAlgorithm implements AlgorithmDescriptor {

	static final FixedWindowAlgorithm INSTANCE = new FixedWindowAlgorithm();

	@Override
	public String scriptName() {
		return "ratelimit_fixed_window";
	}

	@Override
	public String refundScriptName() {
		return "ratelimit_refund_fixed_window";
	}

	@Override
	public boolean servesLocalAllowances() {
		return true;
	}

	@Override
	public double countingSpanMillis(RateLimitPolicy policy, RateLimitWindow window) {
		return window.period().toMillis();
	}

	@Override
	public boolean countsAcrossRegions() {
		return false;
	}

	@Override
	public long chargeable(RateLimitPolicy policy, long excess) {
		return excess;
	}

	@Override
	public String keySuffix(RateLimitPolicy policy) {
		return "fw";
	}

	@Override
	public List<RateLimitUsage.Window> usage(RedisConnection connection, byte[] key, RateLimitPolicy policy,
			double now) {
		return WindowRecords.usage(connection, key, policy, now, (window, record, at) -> {
			double period = window.period().toMillis();
			double index = Math.floor(Math.floor(at) / period);
			boolean current = record[1] == index;
			return RateLimitUsage.Window.of(window, current ? (long) record[2] : 0, (index + 1) * period - at);
		});
	}

}
