package io.github.redkit.budget;

import java.time.Duration;
import java.util.Optional;

/**
 * Budgets in integer minor units (cents, micro-dollars, credits) shared by many services:
 * every change is one atomic script call that never lets a balance go below zero and
 * never applies partially. Reservations that are neither committed nor released return
 * their money after their ttl, settled lazily by the next call on the budget.
 * <p>
 * Amounts are {@code long} values between 0 and {@link #MAX_AMOUNT}; floats are never
 * used. Every method but {@link #create} throws {@link BudgetNotFoundException} for a
 * budget that does not exist, and a {@code DataAccessException} when Redis cannot be
 * reached in time (budgets fail closed).
 */
public interface Budgets {

	/** The largest amount and balance: Lua computes with doubles, exact up to 2^53. */
	long MAX_AMOUNT = (1L << 53) - 1;

	/**
	 * Creates a budget unless it exists.
	 * @param budgetId the budget
	 * @param amount its initial balance
	 * @return {@code false} when it already exists (it is left unchanged)
	 */
	boolean create(String budgetId, long amount);

	/**
	 * Creates a budget, or replaces an existing one (its balance and its open
	 * reservations) when asked.
	 * @param budgetId the budget
	 * @param amount its initial balance
	 * @param replace whether to overwrite an existing budget
	 * @return {@code false} when it already exists and was not replaced
	 */
	boolean create(String budgetId, long amount, boolean replace);

	/**
	 * Deletes a budget and its open reservations.
	 * @param budgetId the budget
	 * @return {@code true} when it existed
	 */
	boolean delete(String budgetId);

	/**
	 * The balance, after expired reservations have returned their money.
	 * @param budgetId the budget
	 * @return the balance
	 */
	long remaining(String budgetId);

	/**
	 * Spends an amount if the balance stays at or above zero; otherwise changes nothing.
	 * @param budgetId the budget
	 * @param amount the amount, {@code > 0}
	 * @return whether it was applied, and the balance after the call
	 */
	SpendResult spend(String budgetId, long amount);

	/**
	 * Spends an amount at most once per operation id: a repeat (a redelivered message, a
	 * retried request) changes nothing and returns the first call's result, for the
	 * operation ttl ({@code redkit.budget.operation-ttl}).
	 * @param budgetId the budget
	 * @param amount the amount, {@code > 0}
	 * @param operationId identifies the spend
	 * @return the first call's result
	 */
	SpendResult spend(String budgetId, long amount, String operationId);

	/**
	 * Gives money back at most once per operation id (kept apart from the spends' ids).
	 * @param budgetId the budget
	 * @param amount the amount, {@code > 0}
	 * @param operationId identifies the refund
	 * @return the first call's result
	 */
	SpendResult refund(String budgetId, long amount, String operationId);

	/**
	 * Takes an amount aside if the balance stays at or above zero.
	 * @param budgetId the budget
	 * @param amount the amount, {@code > 0}
	 * @param ttl after which an open reservation returns its money
	 * @return the reservation, or empty when the balance is too low
	 */
	Optional<Reservation> reserve(String budgetId, long amount, Duration ttl);

	/**
	 * Takes an amount aside once per operation id: a retry (say, after a timeout whose
	 * first call was applied) returns the first call's answer, the same reservation or
	 * none, and reserves nothing more. The answer is kept for the budget's operation ttl
	 * ({@code redkit.budget.operation-ttl}), also after the reservation was committed or
	 * released.
	 * @param budgetId the budget
	 * @param amount the amount, {@code > 0}
	 * @param ttl after which an open reservation returns its money
	 * @param operationId identifies the reservation
	 * @return the first call's reservation, or empty when the first call found the
	 * balance too low
	 */
	Optional<Reservation> reserve(String budgetId, long amount, Duration ttl, String operationId);

	/**
	 * Spends all or part of a reservation and returns the rest. A repeated commit returns
	 * the first result; a reservation already released or expired is not applied.
	 * @param reservation the reservation
	 * @param actualAmount what is spent, between 0 and the reserved amount
	 * @return whether it was applied, and the balance after the call
	 */
	SpendResult commit(Reservation reservation, long actualAmount);

	/**
	 * Spends the whole reservation.
	 * @param reservation the reservation
	 * @return whether it was applied, and the balance after the call
	 */
	default SpendResult commit(Reservation reservation) {
		return commit(reservation, reservation.amount());
	}

	/**
	 * Returns a reservation's money; does nothing when it was already committed, released
	 * or expired.
	 * @param reservation the reservation
	 */
	void release(Reservation reservation);

}
