package io.github.redkit.ratelimit.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitUsage;
import io.github.redkit.ratelimit.RateLimitWindow;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.zset.Tuple;

/**
 * {@link RateLimitAlgorithm#SLIDING_LOG}: a sorted set of the allowed calls, scored by
 * their time in microseconds, so its memory grows with the limit and the limit is capped.
 */
final class SlidingLogAlgorithm implements AlgorithmDescriptor {

	static final SlidingLogAlgorithm INSTANCE = new SlidingLogAlgorithm();

	@Override
	public String scriptName() {
		return "ratelimit_sliding_log";
	}

	@Override
	public String refundScriptName() {
		return "ratelimit_refund_sliding_log";
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

	/**
	 * At most the largest limit: a log keeps one member per permit, and more than the
	 * largest limit fills every window as much as that many do.
	 */
	@Override
	public long chargeable(RateLimitPolicy policy, long excess) {
		return Math.min(excess, policy.windows().stream().mapToLong(RateLimitWindow::limit).max().orElse(excess));
	}

	@Override
	public String keySuffix(RateLimitPolicy policy) {
		return "sl";
	}

	@Override
	public @Nullable String windowProblem(RateLimitWindow window) {
		long max = RateLimitAlgorithm.SLIDING_LOG_MAX_LIMIT;
		return (window.limit() <= max) ? null
				: "limit must be at most " + max
						+ " with the sliding-log algorithm, which keeps one entry per call (was " + window.limit()
						+ "); use sliding-window for larger limits";
	}

	@Override
	public List<RateLimitUsage.Window> usage(RedisConnection connection, byte[] key, RateLimitPolicy policy,
			double now) {
		List<RateLimitUsage.Window> usage = new ArrayList<>();
		for (RateLimitWindow window : policy.windows()) {
			double periodMicros = window.period().toMillis() * 1000.0;
			double since = now * 1000 - periodMicros;
			Long used = connection.zSetCommands().zCount(key, Math.nextUp(since), Double.POSITIVE_INFINITY);
			Set<Tuple> newest = connection.zSetCommands().zRangeWithScores(key, -1, -1);
			double reset = (newest == null || newest.isEmpty()) ? 0
					: (newest.iterator().next().getScore() + periodMicros) / 1000 - now;
			usage.add(RateLimitUsage.Window.of(window, (used != null) ? used : 0, reset));
		}
		return usage;
	}

}
