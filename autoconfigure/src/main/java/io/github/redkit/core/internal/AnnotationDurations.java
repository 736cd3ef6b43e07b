package io.github.redkit.core.internal;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.convert.DurationStyle;

/**
 * Parses the duration strings of Redkit's annotations like Spring Boot parses duration
 * properties: {@code "500ms"}, {@code "10s"}, {@code "48h"} or ISO-8601
 * ({@code "PT10S"}).
 */
public final class AnnotationDurations {

	private AnnotationDurations() {
	}

	/**
	 * Parses a duration attribute.
	 * @param value the attribute value, empty for the default
	 * @param fallback the default, may be {@code null}
	 * @param attribute what the value is, for the error message (e.g.
	 * {@code @DistributedLock.leaseTime on Billing.charge()})
	 * @return the duration, or the default when the value is empty
	 * @throws IllegalArgumentException when the value is not a duration or is negative
	 */
	public static @Nullable Duration parse(String value, @Nullable Duration fallback, String attribute) {
		if (value == null || value.isBlank()) {
			return fallback;
		}
		Duration duration;
		try {
			duration = DurationStyle.detectAndParse(value.trim());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"Invalid duration '" + value + "' for " + attribute + ": use e.g. \"500ms\", \"10s\" or \"48h\"",
					ex);
		}
		if (duration.isNegative()) {
			throw new IllegalArgumentException("Negative duration '" + value + "' for " + attribute);
		}
		return duration;
	}

}
