package io.github.redkit.ratelimit.actuate;

import java.time.Instant;

import io.github.redkit.ratelimit.internal.LocalRateLimiter;
import io.github.redkit.ratelimit.internal.RateLimitInstances;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * How the rate limits are decided with failure-mode {@code local}: always UP (deciding on
 * each instance is the mode's purpose, and Redis' own health says that it is away), with
 * whether the limits are degraded to the local limiter and since when, and the number of
 * instances each window's limit is divided by and where it comes from.
 */
public final class LocalRateLimitHealthIndicator extends AbstractHealthIndicator {

	private final LocalRateLimiter localLimiter;

	/**
	 * Creates the indicator.
	 * @param localLimiter the local limiter to report on
	 */
	public LocalRateLimitHealthIndicator(LocalRateLimiter localLimiter) {
		this.localLimiter = localLimiter;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		Instant since = this.localLimiter.degradedSince();
		RateLimitInstances instances = this.localLimiter.instances();
		builder.up().withDetail("failureMode", "local").withDetail("degraded", since != null);
		if (since != null) {
			builder.withDetail("degradedSince", since.toString());
		}
		builder.withDetail("instances", instances.count()).withDetail("instancesSource", instances.source());
		Instant heardAt = instances.heardAt();
		if (heardAt != null) {
			builder.withDetail("instancesHeardAt", heardAt.toString());
		}
		builder.withDetail("localKeys", this.localLimiter.keys());
	}

}
