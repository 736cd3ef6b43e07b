package io.github.redkit.autoconfigure.actuate;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the dashboard page of the {@code redkit} endpoint.
 */
@ConfigurationProperties("redkit.dashboard")
public class RedkitDashboardProperties {

	/** Whether GET /actuator/redkit with Accept: text/html serves the dashboard page. */
	private boolean enabled;

	/** How often the page polls the endpoint. */
	private Duration pollInterval = Duration.ofSeconds(2);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getPollInterval() {
		return this.pollInterval;
	}

	public void setPollInterval(Duration pollInterval) {
		this.pollInterval = pollInterval;
	}

}
