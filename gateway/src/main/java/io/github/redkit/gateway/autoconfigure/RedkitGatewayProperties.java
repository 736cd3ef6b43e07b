package io.github.redkit.gateway.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the Spring Cloud Gateway support, under {@code redkit.gateway}.
 */
@ConfigurationProperties("redkit.gateway")
public class RedkitGatewayProperties {

	/**
	 * Whether to provide a Spring Cloud Gateway RateLimiter (WebFlux) and the
	 * RedkitRateLimit filter (Server MVC) backed by Redkit's rate limits.
	 */
	private boolean enabled = true;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

}
