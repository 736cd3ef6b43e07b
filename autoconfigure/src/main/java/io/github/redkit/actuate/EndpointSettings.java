package io.github.redkit.actuate;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * How the {@code redkit} endpoint reads Redis and what it reveals.
 *
 * @param showPayloads whether dead-letter payloads and step results are shown
 * @param scanTimeout how long one page of a key listing may scan
 * @param scanCount the {@code COUNT} hint of every {@code SCAN} call
 * @param maxPageSize the most entries one page returns
 */
public record EndpointSettings(boolean showPayloads, Duration scanTimeout, int scanCount, int maxPageSize) {

	/**
	 * Checks the settings.
	 * @param showPayloads whether payloads are shown
	 * @param scanTimeout the time bound of a page
	 * @param scanCount the {@code COUNT} hint
	 * @param maxPageSize the page size bound
	 */
	public EndpointSettings {
		Assert.isTrue(scanTimeout != null && scanTimeout.toMillis() > 0, "scanTimeout must be at least 1 ms");
		Assert.isTrue(scanCount > 0, "scanCount must be positive");
		Assert.isTrue(maxPageSize > 0, "maxPageSize must be positive");
	}

	/**
	 * A page size asked for, within {@code 1..maxPageSize}.
	 * @param asked the size asked for, or {@code null}
	 * @param fallback the size when none was asked for
	 * @return the size to use
	 */
	public int pageSize(@Nullable Integer asked, int fallback) {
		return Math.max(1, Math.min((asked != null) ? asked : fallback, this.maxPageSize));
	}

}
