package io.github.redkit.region;

/**
 * Budgets shared by several regions: every region decides on its own Redis, in one round
 * trip, against what it sees (its own changes and what the others have shipped so far),
 * and ships each change to the others like a {@link RegionalCounters} increment. While
 * regions cannot see each other they may together spend more than the budget: by at most
 * what the other regions spend during the replication lag (see docs/multi-region.md for
 * the measured bound).
 */
public interface RegionalBudgets {

	/**
	 * Grants a budget from this region, unless this region already sees it. Create a
	 * budget in one region: two regions creating the same budget before either has seen
	 * the other's creation both grant it.
	 * @param name the budget name (any text; escaped in keys)
	 * @param amount the amount granted, positive
	 * @return {@code true} when this call granted it
	 */
	boolean create(String name, long amount);

	/**
	 * Reads what is left as this region sees it.
	 * @param name the budget name
	 * @return what is left; below zero when regions together overspent it
	 */
	long remaining(String name);

	/**
	 * Spends from a budget when this region sees enough of it. The operation id makes a
	 * retry safe within this region (a retry answers as the first attempt did while the
	 * id is remembered, {@code redkit.regions.budgets.operation-ttl}); the same id used
	 * in two regions is two spends.
	 * @param name the budget name
	 * @param amount the amount, positive
	 * @param operationId the caller's id of this spend
	 * @return whether it was spent and what is left as this region sees it
	 */
	RegionalSpend spend(String name, long amount, String operationId);

	/**
	 * Gives an amount back to a budget, idempotent per operation id like {@link #spend}.
	 * @param name the budget name
	 * @param amount the amount, positive
	 * @param operationId the caller's id of this refund
	 * @return what is left as this region sees it
	 */
	long refund(String name, long amount, String operationId);

	/**
	 * The answer of a {@link #spend}.
	 *
	 * @param spent whether the amount was spent (or had been, for a replayed id)
	 * @param remaining what is left as this region sees it (as of the first attempt, for
	 * a replayed id)
	 * @param replayed whether the operation id had been seen before, so that nothing
	 * changed
	 */
	record RegionalSpend(boolean spent, long remaining, boolean replayed) {
	}

}
