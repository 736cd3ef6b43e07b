package io.github.redkit.ratelimit.internal;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitUsage;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * {@link RateLimitAlgorithm#SLIDING_WINDOW}: per window a record of its period, the
 * newest and the oldest sub-window with calls, the total, then a ring of one count per
 * sub-window and one spare. The counts are 4-byte integers when every limit fits in them
 * (half the memory of doubles), doubles otherwise; the key says which, and how many
 * sub-windows.
 */
final class SlidingWindowAlgorithm implements AlgorithmDescriptor {

	static final SlidingWindowAlgorithm INSTANCE = new SlidingWindowAlgorithm();

	private static final long LARGEST_INT_COUNT = 0xFFFF_FFFFL;

	@Override
	public String scriptName() {
		return "ratelimit_sliding_window";
	}

	@Override
	public String keySuffix(RateLimitPolicy policy) {
		return "sw" + policy.subWindows() + (wide(policy) ? "d" : "");
	}

	@Override
	public String recordFormat(RateLimitPolicy policy) {
		return "ddd" + (wide(policy) ? "d" : "I4").repeat(policy.subWindows() + 2);
	}

	/**
	 * The sub-windows, then one record's format.
	 */
	@Override
	public byte[][] extraArguments(RateLimitPolicy policy) {
		return new byte[][] { ascii(Integer.toString(policy.subWindows())), ascii("<" + recordFormat(policy)) };
	}

	@Override
	public List<RateLimitUsage.Window> usage(RedisConnection connection, byte[] key, RateLimitPolicy policy,
			double now) {
		int subWindows = policy.subWindows();
		return WindowRecords.usage(connection, key, policy, recordFormat(policy), now, (window, record, at) -> {
			double period = window.period().toMillis();
			int slots = subWindows + 1;
			double width = period / subWindows;
			long index = (long) Math.floor(at / width);
			long newest = (long) record[1];
			long used = 0;
			for (long q = Math.max(index, newest) - subWindows; q <= newest; q++) {
				used += (long) record[4 + (int) Math.floorMod(q, slots)];
			}
			return RateLimitUsage.Window.of(window, used, (newest + 1) * width + period - at);
		});
	}

	private static boolean wide(RateLimitPolicy policy) {
		return policy.windows().stream().anyMatch((window) -> window.limit() > LARGEST_INT_COUNT);
	}

	private static byte[] ascii(String text) {
		return text.getBytes(StandardCharsets.US_ASCII);
	}

}
