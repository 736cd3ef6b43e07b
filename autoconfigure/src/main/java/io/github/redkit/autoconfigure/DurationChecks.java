package io.github.redkit.autoconfigure;

import java.time.Duration;

/**
 * The start-up checks of duration properties, so that every property fails with the same
 * message naming it. Redis works in milliseconds: a positive duration is at least one.
 */
public final class DurationChecks {

	private DurationChecks() {
	}

	public static void positive(Duration value, String property) {
		if (value == null || value.toMillis() < 1) {
			throw new IllegalArgumentException(property + " must be > 0 (at least 1ms; was " + value + ")");
		}
	}

	public static void notNegative(Duration value, String property) {
		if (value == null || value.isNegative()) {
			throw new IllegalArgumentException(property + " must be >= 0 (was " + value + ")");
		}
	}

}
