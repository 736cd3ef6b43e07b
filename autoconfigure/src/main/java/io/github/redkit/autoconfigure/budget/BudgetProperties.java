package io.github.redkit.autoconfigure.budget;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Properties of budgets ({@code Budgets}).
 */
@ConfigurationProperties("redkit.budget")
public class BudgetProperties {

	/**
	 * Whether budgets are enabled.
	 */
	private boolean enabled = true;

	/**
	 * How long the first result of an idempotent spend, refund or commit is kept for its
	 * repeats.
	 */
	private Duration operationTtl = Duration.ofHours(48);

	/**
	 * Longest wait for Redis; then the call fails (budgets fail closed).
	 */
	private Duration timeout = Duration.ofSeconds(2);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getOperationTtl() {
		return this.operationTtl;
	}

	public void setOperationTtl(Duration operationTtl) {
		this.operationTtl = operationTtl;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

}
