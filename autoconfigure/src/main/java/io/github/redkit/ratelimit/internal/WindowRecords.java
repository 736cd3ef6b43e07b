package io.github.redkit.ratelimit.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitUsage;
import io.github.redkit.ratelimit.RateLimitWindow;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * Reads the records the decision scripts of {@code ratelimit_windows.lua} keep in one
 * string per identifier: four little-endian doubles per window, its period first, so that
 * the layout is written down once on the Java side.
 */
final class WindowRecords {

	/** The struct format of one window's record. */
	static final String RECORD = "dddd";

	private static final int RECORD_BYTES = 32;

	private WindowRecords() {
	}

	/**
	 * How an algorithm turns one window's record into its usage.
	 */
	@FunctionalInterface
	interface Decoder {

		/**
		 * Decodes a record.
		 * @param window the window
		 * @param record the four numbers the record holds, in order, the period first
		 * @param now Redis' time, in milliseconds
		 * @return the window's usage
		 */
		RateLimitUsage.Window decode(RateLimitWindow window, double[] record, double now);

	}

	/**
	 * Reads the usage of every window with one {@code GET}.
	 * @param connection the connection
	 * @param key the identifier's key
	 * @param policy the policy
	 * @param now Redis' time, in milliseconds
	 * @param decoder decodes a window's record
	 * @return one usage per window, in the policy's order
	 */
	static List<RateLimitUsage.Window> usage(RedisConnection connection, byte[] key, RateLimitPolicy policy, double now,
			Decoder decoder) {
		byte[] state = connection.stringCommands().get(key);
		List<RateLimitUsage.Window> usage = new ArrayList<>();
		for (RateLimitWindow window : policy.windows()) {
			double[] record = (state != null) ? find(state, window.period().toMillis()) : null;
			usage.add((record != null) ? decoder.decode(window, record, now) : RateLimitUsage.Window.of(window, 0, 0));
		}
		return usage;
	}

	// the records of every window, one after the other, each starting with its period
	private static double @Nullable [] find(byte[] state, long period) {
		if (state.length % RECORD_BYTES != 0) {
			return null;
		}
		ByteBuffer buffer = ByteBuffer.wrap(state).order(ByteOrder.LITTLE_ENDIAN);
		for (int at = 0; at < state.length; at += RECORD_BYTES) {
			if (buffer.getDouble(at) == period) {
				return new double[] { period, buffer.getDouble(at + 8), buffer.getDouble(at + 16),
						buffer.getDouble(at + 24) };
			}
		}
		return null;
	}

}
