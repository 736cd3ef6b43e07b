package io.github.redkit.budget.internal;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * A budget's local allowance: an instance spends {@code size} from the balance in one
 * call and hands it out to the spends of that budget itself for at most {@code maxAge};
 * what it has not handed out by then is refunded.
 *
 * @param size the amount a batch takes
 * @param maxAge the longest a batch is handed out
 */
public record BudgetAllowance(long size, Duration maxAge) {

	/**
	 * Checks the values.
	 * @param size the amount a batch takes, at least 1
	 * @param maxAge the longest a batch is handed out, positive
	 */
	public BudgetAllowance {
		Assert.isTrue(size >= 1, "A local allowance's size must be at least 1");
		Assert.isTrue(maxAge.compareTo(Duration.ZERO) > 0, "A local allowance's max-age must be positive");
	}

}
