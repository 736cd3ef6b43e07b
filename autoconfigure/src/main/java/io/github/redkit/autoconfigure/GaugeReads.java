package io.github.redkit.autoconfigure;

import java.time.Duration;

import io.github.redkit.core.internal.BackgroundReads;

/**
 * The background reads of Redkit's gauge families, at
 * {@code redkit.metrics.gauge-refresh}: the one way every gauge that comes from Redis is
 * read.
 */
public final class GaugeReads {

	private static final String PROPERTY = "redkit.metrics.gauge-refresh";

	private GaugeReads() {
	}

	/**
	 * The refresh interval.
	 * @param properties Redkit's properties
	 * @return {@code redkit.metrics.gauge-refresh}
	 * @throws IllegalArgumentException naming the property when it is not positive
	 */
	public static Duration refresh(RedkitProperties properties) {
		Duration refresh = properties.getMetrics().getGaugeRefresh();
		DurationChecks.positive(refresh, PROPERTY);
		return refresh;
	}

	/**
	 * The reads of one gauge family, on a thread of its own.
	 * @param properties Redkit's properties
	 * @param threadName the name of the family's thread
	 * @return the reads
	 * @throws IllegalArgumentException naming the property when it is not positive
	 */
	public static BackgroundReads of(RedkitProperties properties, String threadName) {
		return new BackgroundReads(threadName, refresh(properties));
	}

}
