package io.github.redkit.autoconfigure.doctor;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the server doctor, which checks that the Redis server's settings keep what
 * the capabilities in use need.
 */
@ConfigurationProperties("redkit.doctor")
public class DoctorProperties {

	/** Whether to check the server at start-up, in health and on the endpoint. */
	private boolean enabled = true;

	/** What a setting that may take away a guarantee does at start-up. */
	private OnRisk onRisk = OnRisk.WARN;

	/** The longest wait for the server's settings. */
	private Duration timeout = Duration.ofSeconds(2);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public OnRisk getOnRisk() {
		return this.onRisk;
	}

	public void setOnRisk(OnRisk onRisk) {
		this.onRisk = onRisk;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	/**
	 * What a risk found at start-up does.
	 */
	public enum OnRisk {

		/** Log it and start. */
		WARN,

		/** Stop the start-up, naming each risk. */
		FAIL

	}

}
