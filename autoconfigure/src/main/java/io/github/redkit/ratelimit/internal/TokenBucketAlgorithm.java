package io.github.redkit.ratelimit.internal;

import java.util.List;

import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitUsage;
import io.github.redkit.ratelimit.RateLimitWindow;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * {@link RateLimitAlgorithm#TOKEN_BUCKET}: per window a record of its period and the
 * theoretical arrival time of the next call (GCRA).
 */
final class TokenBucketAlgorithm implements AlgorithmDescriptor {

	static final TokenBucketAlgorithm INSTANCE = new TokenBucketAlgorithm();

	@Override
	public String scriptName() {
		return "ratelimit_token_bucket";
	}

	@Override
	public String refundScriptName() {
		return "ratelimit_refund_token_bucket";
	}

	@Override
	public boolean servesLocalAllowances() {
		return false;
	}

	/** The window itself; never asked, as it serves no local allowance. */
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
		return "tb";
	}

	@Override
	public List<RateLimitUsage.Window> usage(RedisConnection connection, byte[] key, RateLimitPolicy policy,
			double now) {
		return WindowRecords.usage(connection, key, policy, now, (window, record, at) -> {
			// every token taken pushes the theoretical arrival time one interval on
			double ahead = record[1] - at;
			double interval = window.period().toMillis() / (double) window.limit();
			return RateLimitUsage.Window.of(window, (long) Math.ceil(Math.max(0, ahead) / interval), ahead);
		});
	}

}
