package io.github.redkit.budget;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

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

	/**
	 * {@link #create(String, long, boolean)} without blocking the calling thread. The
	 * defaults of these {@code *Async} methods call the blocking ones on the common pool;
	 * {@code RedisBudgets} sends its script without any thread waiting, and the blocking
	 * methods wait for the same call.
	 * @param budgetId the budget
	 * @param amount its initial balance
	 * @param replace whether to overwrite an existing budget
	 * @return {@code false} when it already exists and was not replaced
	 */
	default CompletableFuture<Boolean> createAsync(String budgetId, long amount, boolean replace) {
		return CompletableFuture.supplyAsync(() -> create(budgetId, amount, replace));
	}

	/**
	 * {@link #delete(String)} without blocking the calling thread.
	 * @param budgetId the budget
	 * @return {@code true} when it existed
	 */
	default CompletableFuture<Boolean> deleteAsync(String budgetId) {
		return CompletableFuture.supplyAsync(() -> delete(budgetId));
	}

	/**
	 * {@link #remaining(String)} without blocking the calling thread.
	 * @param budgetId the budget
	 * @return the balance
	 */
	default CompletableFuture<Long> remainingAsync(String budgetId) {
		return CompletableFuture.supplyAsync(() -> remaining(budgetId));
	}

	/**
	 * {@link #spend(String, long)} without blocking the calling thread.
	 * @param budgetId the budget
	 * @param amount the amount, {@code > 0}
	 * @return whether it was applied, and the balance after the call
	 */
	default CompletableFuture<SpendResult> spendAsync(String budgetId, long amount) {
		return CompletableFuture.supplyAsync(() -> spend(budgetId, amount));
	}

	/**
	 * {@link #spend(String, long, String)} without blocking the calling thread.
	 * @param budgetId the budget
	 * @param amount the amount, {@code > 0}
	 * @param operationId identifies the spend
	 * @return the first call's result
	 */
	default CompletableFuture<SpendResult> spendAsync(String budgetId, long amount, String operationId) {
		return CompletableFuture.supplyAsync(() -> spend(budgetId, amount, operationId));
	}

	/**
	 * {@link #refund(String, long, String)} without blocking the calling thread.
	 * @param budgetId the budget
	 * @param amount the amount, {@code > 0}
	 * @param operationId identifies the refund
	 * @return the first call's result
	 */
	default CompletableFuture<SpendResult> refundAsync(String budgetId, long amount, String operationId) {
		return CompletableFuture.supplyAsync(() -> refund(budgetId, amount, operationId));
	}

	/**
	 * {@link #reserve(String, long, Duration)} without blocking the calling thread.
	 * @param budgetId the budget
	 * @param amount the amount, {@code > 0}
	 * @param ttl after which an open reservation returns its money
	 * @return the reservation, or empty when the balance is too low
	 */
	default CompletableFuture<Optional<Reservation>> reserveAsync(String budgetId, long amount, Duration ttl) {
		return CompletableFuture.supplyAsync(() -> reserve(budgetId, amount, ttl));
	}

	/**
	 * {@link #reserve(String, long, Duration, String)} without blocking the calling
	 * thread.
	 * @param budgetId the budget
	 * @param amount the amount, {@code > 0}
	 * @param ttl after which an open reservation returns its money
	 * @param operationId identifies the reservation
	 * @return the first call's reservation, or empty
	 */
	default CompletableFuture<Optional<Reservation>> reserveAsync(String budgetId, long amount, Duration ttl,
			String operationId) {
		return CompletableFuture.supplyAsync(() -> reserve(budgetId, amount, ttl, operationId));
	}

	/**
	 * {@link #commit(Reservation, long)} without blocking the calling thread.
	 * @param reservation the reservation
	 * @param actualAmount what is spent, between 0 and the reserved amount
	 * @return whether it was applied, and the balance after the call
	 */
	default CompletableFuture<SpendResult> commitAsync(Reservation reservation, long actualAmount) {
		return CompletableFuture.supplyAsync(() -> commit(reservation, actualAmount));
	}

	/**
	 * {@link #release(Reservation)} without blocking the calling thread.
	 * @param reservation the reservation
	 * @return completed once released (or found already settled)
	 */
	default CompletableFuture<Void> releaseAsync(Reservation reservation) {
		return CompletableFuture.runAsync(() -> release(reservation));
	}

}
