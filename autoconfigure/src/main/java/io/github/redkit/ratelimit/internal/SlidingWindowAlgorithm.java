package io.github.redkit.ratelimit.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitUsage;
import io.github.redkit.ratelimit.RateLimitWindow;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * {@link RateLimitAlgorithm#SLIDING_WINDOW}: per identifier a header of the periods, the
 * time the newest sub-windows were counted at, and per window its total, the count of its
 * newest sub-window and where its oldest calls are; then, only while they hold a call,
 * rings of the older sub-windows' counts (the layout is described in
 * {@code ratelimit_sliding_window.lua}). Counts are as narrow as the policy's limits
 * allow, and the key says how wide, so that a policy whose counts need more bytes starts
 * afresh instead of misreading.
 */
final class SlidingWindowAlgorithm implements AlgorithmDescriptor {

	static final SlidingWindowAlgorithm INSTANCE = new SlidingWindowAlgorithm();

	@Override
	public String scriptName() {
		return "ratelimit_sliding_window";
	}

	@Override
	public String refundScriptName() {
		return "ratelimit_refund_sliding_window";
	}

	@Override
	public boolean servesLocalAllowances() {
		return true;
	}

	@Override
	public double countingSpanMillis(RateLimitPolicy policy, RateLimitWindow window) {
		return window.period().toMillis() / (double) policy.subWindows();
	}

	@Override
	public boolean countsAcrossRegions() {
		return true;
	}

	@Override
	public long chargeable(RateLimitPolicy policy, long excess) {
		return excess;
	}

	@Override
	public String keySuffix(RateLimitPolicy policy) {
		return "sw" + policy.subWindows() + "-" + Width.of(policy).bits;
	}

	@Override
	public String recordsFormat(RateLimitPolicy policy) {
		Width width = Width.of(policy);
		int windows = policy.windows().size();
		return "<I1" + width.period.repeat(windows) + "d" + width.windowHeader().repeat(windows);
	}

	/**
	 * The layout's numbers (sub-windows, the largest count, the header's and the rings'
	 * bytes), the rings' format, then the formats of a period, a window's header and a
	 * count, which read a record of another policy.
	 */
	@Override
	public byte[][] extraArguments(RateLimitPolicy policy) {
		Width width = Width.of(policy);
		int windows = policy.windows().size();
		int subWindows = policy.subWindows();
		byte[] layout = ByteBuffer.allocate(32)
			.order(ByteOrder.LITTLE_ENDIAN)
			.putDouble(subWindows)
			.putDouble(width.largestCount)
			.putDouble(headerBytes(width, windows))
			.putDouble((double) subWindows * windows * width.countBytes)
			.array();
		return new byte[][] { layout, ascii("<" + width.count.repeat(subWindows * windows)), ascii(width.period),
				ascii(width.windowHeader()), ascii(width.count) };
	}

	@Override
	public List<RateLimitUsage.Window> usage(RedisConnection connection, byte[] key, RateLimitPolicy policy,
			double now) {
		byte[] state = connection.stringCommands().get(key);
		Width width = Width.of(policy);
		int windows = policy.windows().size();
		int subWindows = policy.subWindows();
		int header = headerBytes(width, windows);
		int rings = subWindows * windows * width.countBytes;
		List<RateLimitUsage.Window> usage = new ArrayList<>();
		boolean readable = state != null && (state.length == header || state.length == header + rings)
				&& state[0] == windows;
		ByteBuffer buffer = readable ? ByteBuffer.wrap(state).order(ByteOrder.LITTLE_ENDIAN) : null;
		for (int j = 0; j < windows; j++) {
			RateLimitWindow window = policy.windows().get(j);
			double period = window.period().toMillis();
			if (buffer == null || width.read(buffer, 1 + j * width.periodBytes, width.periodBytes) != period) {
				usage.add(RateLimitUsage.Window.of(window, 0, 0));
				continue;
			}
			double last = buffer.getDouble(1 + windows * width.periodBytes);
			int at = 1 + windows * width.periodBytes + 8 + j * (width.totalBytes + width.countBytes + 1);
			double current = width.read(buffer, at + width.totalBytes, width.countBytes);
			double slotWidth = period / subWindows;
			long index = (long) Math.floor(Math.max(now, last) / slotWidth);
			long newest = (long) Math.floor(last / slotWidth);
			long used = (newest >= index - subWindows) ? (long) current : 0;
			if (state.length > header) {
				int ring = header + j * subWindows * width.countBytes;
				for (long q = Math.max(index, newest) - subWindows; q < newest; q++) {
					used += (long) width.read(buffer, ring + (int) Math.floorMod(q, subWindows) * width.countBytes,
							width.countBytes);
				}
			}
			usage.add(RateLimitUsage.Window.of(window, used, (newest + 1) * slotWidth + period - now));
		}
		return usage;
	}

	private static int headerBytes(Width width, int windows) {
		return 1 + windows * width.periodBytes + 8 + windows * (width.totalBytes + width.countBytes + 1);
	}

	private static byte[] ascii(String text) {
		return text.getBytes(StandardCharsets.US_ASCII);
	}

	/**
	 * How wide a record's numbers are: 2-byte counts (4-byte totals) while every limit
	 * fits, 4-byte counts (double totals) up to 2³² - 2, doubles beyond or when a period
	 * does not fit 4 bytes of milliseconds.
	 */
	private enum Width {

		NARROW(16, "I4", "I4", "I2", 0xFFFF), WIDE(32, "I4", "d", "I4", 0xFFFF_FFFFL),
		DOUBLE(64, "d", "d", "d", 1L << 53);

		private final int bits;

		private final String period;

		private final String total;

		private final String count;

		private final int periodBytes;

		private final int totalBytes;

		private final int countBytes;

		private final long largestCount;

		Width(int bits, String period, String total, String count, long largestCount) {
			this.bits = bits;
			this.period = period;
			this.total = total;
			this.count = count;
			this.periodBytes = bytes(period);
			this.totalBytes = bytes(total);
			this.countBytes = bytes(count);
			this.largestCount = largestCount;
		}

		static Width of(RateLimitPolicy policy) {
			long limit = 0;
			long period = 0;
			for (RateLimitWindow window : policy.windows()) {
				limit = Math.max(limit, window.limit());
				period = Math.max(period, window.period().toMillis());
			}
			if (period > 0xFFFF_FFFFL) {
				return DOUBLE;
			}
			// a count saturates at its largest value: one above the limit still refuses
			return (limit < NARROW.largestCount) ? NARROW : (limit < WIDE.largestCount) ? WIDE : DOUBLE;
		}

		String windowHeader() {
			return this.total + this.count + "I1";
		}

		double read(ByteBuffer buffer, int at, int bytes) {
			return switch (bytes) {
				case 2 -> Short.toUnsignedInt(buffer.getShort(at));
				case 4 -> Integer.toUnsignedLong(buffer.getInt(at));
				default -> buffer.getDouble(at);
			};
		}

		private static int bytes(String format) {
			return format.equals("d") ? 8 : Integer.parseInt(format.substring(1));
		}

	}

}
