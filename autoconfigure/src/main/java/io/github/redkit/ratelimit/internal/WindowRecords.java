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
 * Reads the records the decision scripts keep in one string per identifier, with the
 * layout the algorithm gave its script ({@link AlgorithmDescriptor#recordFormat}), so
 * that the layout is written down once on the Java side.
 */
final class WindowRecords {

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
		 * @param record the record's numbers, in order, the period first
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
	 * @param format one record's format (see {@link AlgorithmDescriptor#recordFormat})
	 * @param now Redis' time, in milliseconds
	 * @param decoder decodes a window's record
	 * @return one usage per window, in the policy's order
	 */
	static List<RateLimitUsage.Window> usage(RedisConnection connection, byte[] key, RateLimitPolicy policy,
			String format, double now, Decoder decoder) {
		byte[] state = connection.stringCommands().get(key);
		List<RateLimitUsage.Window> usage = new ArrayList<>();
		for (RateLimitWindow window : policy.windows()) {
			double[] record = (state != null) ? find(state, format, window.period().toMillis()) : null;
			usage.add((record != null) ? decoder.decode(window, record, now) : RateLimitUsage.Window.of(window, 0, 0));
		}
		return usage;
	}

	// the records of every window, one after the other, each starting with its period
	private static double @Nullable [] find(byte[] state, String format, long period) {
		int[] widths = widths(format);
		int size = 0;
		for (int width : widths) {
			size += width;
		}
		if (state.length % size != 0) {
			return null;
		}
		ByteBuffer buffer = ByteBuffer.wrap(state).order(ByteOrder.LITTLE_ENDIAN);
		for (int at = 0; at < state.length; at += size) {
			buffer.position(at);
			if (buffer.getDouble() != period) {
				continue;
			}
			double[] record = new double[widths.length];
			record[0] = period;
			for (int i = 1; i < widths.length; i++) {
				record[i] = (widths[i] == 8) ? buffer.getDouble() : Integer.toUnsignedLong(buffer.getInt());
			}
			return record;
		}
		return null;
	}

	// the byte width of each number: "d" a double, "I4" a 4-byte unsigned integer
	private static int[] widths(String format) {
		List<Integer> widths = new ArrayList<>();
		for (int i = 0; i < format.length(); i++) {
			if (format.charAt(i) == 'I') {
				widths.add(4);
				i++;
			}
			else {
				widths.add(8);
			}
		}
		return widths.stream().mapToInt(Integer::intValue).toArray();
	}

}
