package io.github.redkit.autoconfigure.idempotency;

import java.time.Duration;

import io.github.redkit.idempotency.internal.IdempotentStepAdvisor;
import io.github.redkit.idempotency.internal.IdempotentStepInterceptor;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Properties of idempotent steps ({@code @IdempotentStep}, {@code IdempotentSteps}).
 */
@ConfigurationProperties("redkit.idempotency")
public class IdempotencyProperties {

	/**
	 * Whether idempotent steps are enabled.
	 */
	private boolean enabled = true;

	/**
	 * How long an operation's steps and results are kept when the annotation names no
	 * ttl.
	 */
	private Duration ttl = Duration.ofHours(48);

	/**
	 * How long a claim holds a step while it runs; after it a crashed holder no longer
	 * blocks retries.
	 */
	private Duration inProgressLease = Duration.ofSeconds(30);

	/**
	 * Longest wait for Redis; then the call fails (steps fail closed).
	 */
	private Duration timeout = Duration.ofSeconds(2);

	/**
	 * Most elements an @IdempotentStep method returning a Flux records for replay; beyond
	 * it the step is abandoned and the Flux fails with StepResultTooLargeException.
	 */
	private int maxFluxElements = IdempotentStepInterceptor.DEFAULT_MAX_FLUX_ELEMENTS;

	/**
	 * Order of the @IdempotentStep advisor (rate limit, idempotency, lock, transaction).
	 */
	private int order = IdempotentStepAdvisor.DEFAULT_ORDER;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getTtl() {
		return this.ttl;
	}

	public void setTtl(Duration ttl) {
		this.ttl = ttl;
	}

	public Duration getInProgressLease() {
		return this.inProgressLease;
	}

	public void setInProgressLease(Duration inProgressLease) {
		this.inProgressLease = inProgressLease;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public int getMaxFluxElements() {
		return this.maxFluxElements;
	}

	public void setMaxFluxElements(int maxFluxElements) {
		this.maxFluxElements = maxFluxElements;
	}

	public int getOrder() {
		return this.order;
	}

	public void setOrder(int order) {
		this.order = order;
	}

}
