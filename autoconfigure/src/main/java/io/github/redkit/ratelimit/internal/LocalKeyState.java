package io.github.redkit.ratelimit.internal;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import io.github.redkit.ratelimit.RateLimitWindow;

/**
 * What the local limiter counted for one identifier of one limit: per window, a ring of
 * {@code n + 1} sub-windows of {@code period / n} each. A call in sub-window {@code k} is
 * checked against the calls of sub-windows {@code k - n} to {@code k}, which together
 * cover every interval of one period that ends in {@code k}: so no interval of one period
 * holds more calls than the limit, and a permit comes back at most one sub-window later
 * than an exact log would give it. Guarded by its limiter's lock.
 */
final class LocalKeyState {

	// the most a sub-window counts: the n + 1 of a window (n at most 100) sum without
	// overflow
	private static final long MAX_COUNT = Long.MAX_VALUE / 128;

	private final long[] periods;

	private final int subWindows;

	// [window][slot]: the sub-window a slot counts, and its count
	private final long[][] indexes;

	private final long[][] counts;

	private final Duration lifetime;

	LocalKeyState(List<RateLimitWindow> windows, int subWindows) {
		this.periods = new long[windows.size()];
		this.subWindows = subWindows;
		this.indexes = new long[windows.size()][subWindows + 1];
		this.counts = new long[windows.size()][subWindows + 1];
		long longest = 0;
		for (int w = 0; w < this.periods.length; w++) {
			this.periods[w] = windows.get(w).period().toNanos();
			longest = Math.max(longest, this.periods[w]);
			Arrays.fill(this.indexes[w], Long.MIN_VALUE);
		}
		// after a period and a sub-window without a call nothing counted is still counted
		this.lifetime = Duration.ofNanos(longest + longest / subWindows + 1);
	}

	/**
	 * Whether this state counts the windows of these periods in as many sub-windows.
	 */
	boolean fits(List<RateLimitWindow> windows, int subWindows) {
		if (windows.size() != this.periods.length || subWindows != this.subWindows) {
			return false;
		}
		for (int w = 0; w < this.periods.length; w++) {
			if (windows.get(w).period().toNanos() != this.periods[w]) {
				return false;
			}
		}
		return true;
	}

	/** How long this state is worth keeping after its last use. */
	Duration lifetime() {
		return this.lifetime;
	}

	long width(int window) {
		return Math.max(1, this.periods[window] / this.subWindows);
	}

	/** The calls counted in window {@code window} at {@code now} (nanoseconds). */
	long used(int window, long now) {
		long k = now / width(window);
		long used = 0;
		for (int slot = 0; slot <= this.subWindows; slot++) {
			if (counts(window, slot, k)) {
				used += this.counts[window][slot];
			}
		}
		return used;
	}

	/**
	 * How long until {@code excess} of the counted calls no longer count: the end of the
	 * sub-window one period after the sub-window that frees them.
	 */
	long nanosUntilFreed(int window, long now, long excess) {
		long width = width(window);
		long k = now / width;
		long freed = 0;
		for (long j = k - this.subWindows; j <= k; j++) {
			freed += count(window, j);
			if (freed >= excess) {
				return (j + this.subWindows + 1) * width - now;
			}
		}
		return this.periods[window];
	}

	/** How long until the oldest counted call no longer counts; zero when none does. */
	long nanosUntilReset(int window, long now) {
		return (used(window, now) == 0) ? 0 : nanosUntilFreed(window, now, 1);
	}

	void add(int window, long now, long cost) {
		long k = now / width(window);
		int slot = (int) Math.floorMod(k, (long) this.subWindows + 1);
		if (this.indexes[window][slot] != k) {
			this.indexes[window][slot] = k;
			this.counts[window][slot] = 0;
		}
		// saturates: a huge charge fills every window, and a sum of counts never wraps
		// around to a negative that would admit everything
		long count = this.counts[window][slot] + cost;
		this.counts[window][slot] = (count < 0 || count > MAX_COUNT) ? MAX_COUNT : count;
	}

	/**
	 * Gives back up to {@code permits} counted in the sub-window of {@code at}, if a slot
	 * still counts that sub-window.
	 */
	void giveBack(int window, long at, long permits) {
		long k = at / width(window);
		int slot = (int) Math.floorMod(k, (long) this.subWindows + 1);
		if (this.indexes[window][slot] == k) {
			this.counts[window][slot] = Math.max(0, this.counts[window][slot] - permits);
		}
	}

	private long count(int window, long subWindow) {
		int slot = (int) Math.floorMod(subWindow, (long) this.subWindows + 1);
		return (this.indexes[window][slot] == subWindow) ? this.counts[window][slot] : 0;
	}

	private boolean counts(int window, int slot, long k) {
		long index = this.indexes[window][slot];
		return index != Long.MIN_VALUE && index >= k - this.subWindows && index <= k;
	}

}
