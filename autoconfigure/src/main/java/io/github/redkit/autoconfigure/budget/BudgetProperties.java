package io.github.redkit.autoconfigure.budget;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

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

	/**
	 * Local allowances of hot budgets, by budget id: batches spent from the balance in
	 * one call and handed out by this instance.
	 */
	private Map<String, LocalAllowance> localAllowances = new LinkedHashMap<>();

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

	public Map<String, LocalAllowance> getLocalAllowances() {
		return this.localAllowances;
	}

	public void setLocalAllowances(Map<String, LocalAllowance> localAllowances) {
		this.localAllowances = localAllowances;
	}

	/**
	 * A budget's local allowance.
	 */
	public static class LocalAllowance {

		/**
		 * Amount a batch spends from the balance in one call; this instance hands it out
		 * to the budget's spends (without an operation id) itself.
		 */
		private long size;

		/**
		 * The longest a batch is handed out before what is left of it is refunded.
		 */
		private Duration maxAge = Duration.ofMillis(100);

		public long getSize() {
			return this.size;
		}

		public void setSize(long size) {
			this.size = size;
		}

		public Duration getMaxAge() {
			return this.maxAge;
		}

		public void setMaxAge(Duration maxAge) {
			this.maxAge = maxAge;
		}

	}

}
