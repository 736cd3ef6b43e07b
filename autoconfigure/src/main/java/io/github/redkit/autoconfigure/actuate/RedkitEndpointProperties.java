package io.github.redkit.autoconfigure.actuate;

import java.time.Duration;

import io.github.redkit.actuate.EndpointSettings;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the {@code redkit} actuator endpoint.
 */
@ConfigurationProperties("redkit.endpoint")
public class RedkitEndpointProperties {

	/**
	 * Whether dead-letter payloads and idempotent steps' results are shown; they may hold
	 * personal data.
	 */
	private boolean showPayloads;

	/** How long one page of a key listing may scan before it returns what it found. */
	private Duration scanTimeout = Duration.ofMillis(200);

	/** The largest COUNT hint of a listing's SCAN calls. */
	private int scanCount = 1000;

	/** The most entries one page returns. */
	private int maxPageSize = 100;

	public boolean isShowPayloads() {
		return this.showPayloads;
	}

	public void setShowPayloads(boolean showPayloads) {
		this.showPayloads = showPayloads;
	}

	public Duration getScanTimeout() {
		return this.scanTimeout;
	}

	public void setScanTimeout(Duration scanTimeout) {
		this.scanTimeout = scanTimeout;
	}

	public int getScanCount() {
		return this.scanCount;
	}

	public void setScanCount(int scanCount) {
		this.scanCount = scanCount;
	}

	public int getMaxPageSize() {
		return this.maxPageSize;
	}

	public void setMaxPageSize(int maxPageSize) {
		this.maxPageSize = maxPageSize;
	}

	/**
	 * The settings these properties describe.
	 * @return the settings
	 */
	public EndpointSettings toSettings() {
		return new EndpointSettings(this.showPayloads, this.scanTimeout, this.scanCount, this.maxPageSize);
	}

}
