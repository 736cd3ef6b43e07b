package io.github.redkit.budget;

import java.time.Duration;

import reactor.core.publisher.Mono;

/**
 * The {@link Budgets}' reactive face: the same operations, sent on subscription and
 * answered without blocking a thread. Failures are the blocking face's exceptions as
 * errors: {@link BudgetNotFoundException}, {@link BudgetOverflowException}, and a
 * {@code DataAccessException} when Redis cannot be reached in time (budgets fail closed).
 */
public interface ReactiveBudgets {

	/**
	 * Creates a budget unless it exists.
	 * @param budgetId the budget
	 * @param amount its initial balance
	 * @return {@code false} when it already exists (it is left unchanged)
	 */
	default Mono<Boolean> create(String budgetId, long amount) {
		return create(budgetId, amount, false);
	}

	/**
	 * Creates a budget, or replaces an existing one when asked.
	 * @param budgetId the budget
	 * @param amount its initial balance
	 * @param replace whether to overwrite an existing budget
	 * @return {@code false} when it already exists and was not replaced
	 */
	Mono<Boolean> create(String budgetId, long amount, boolean replace);

	/**
	 * Deletes a budget and its open reservations.
	 * @param budgetId the budget
	 * @return {@code true} when it existed
	 */
	Mono<Boolean> delete(String budgetId);

	/**
	 * The balance, after expired reservations have returned their money.
	 * @param budgetId the budget
	 * @return the balance
	 */
	Mono<Long> remaining(String budgetId);

	/**
	 * Spends an amount if the balance stays at or above zero.
	 * @param budgetId the budget
	 * @param amount the amount, {@code > 0}
	 * @return whether it was applied, and the balance after the call
	 */
	Mono<SpendResult> spend(String budgetId, long amount);

	/**
	 * Spends an amount at most once per operation id (see
	 * {@link Budgets#spend(String, long, String)}).
	 * @param budgetId the budget
	 * @param amount the amount, {@code > 0}
	 * @param operationId identifies the spend
	 * @return the first call's result
	 */
	Mono<SpendResult> spend(String budgetId, long amount, String operationId);

	/**
	 * Gives money back at most once per operation id.
	 * @param budgetId the budget
	 * @param amount the amount, {@code > 0}
	 * @param operationId identifies the refund
	 * @return the first call's result
	 */
	Mono<SpendResult> refund(String budgetId, long amount, String operationId);

	/**
	 * Takes an amount aside if the balance stays at or above zero.
	 * @param budgetId the budget
	 * @param amount the amount, {@code > 0}
	 * @param ttl after which an open reservation returns its money
	 * @return the reservation, or empty when the balance is too low
	 */
	Mono<Reservation> reserve(String budgetId, long amount, Duration ttl);

	/**
	 * Takes an amount aside once per operation id (see
	 * {@link Budgets#reserve(String, long, Duration, String)}).
	 * @param budgetId the budget
	 * @param amount the amount, {@code > 0}
	 * @param ttl after which an open reservation returns its money
	 * @param operationId identifies the reservation
	 * @return the first call's reservation, or empty when it found the balance too low
	 */
	Mono<Reservation> reserve(String budgetId, long amount, Duration ttl, String operationId);

	/**
	 * Spends all or part of a reservation and returns the rest.
	 * @param reservation the reservation
	 * @param actualAmount what is spent, between 0 and the reserved amount
	 * @return whether it was applied, and the balance after the call
	 */
	Mono<SpendResult> commit(Reservation reservation, long actualAmount);

	/**
	 * Spends the whole reservation.
	 * @param reservation the reservation
	 * @return whether it was applied, and the balance after the call
	 */
	default Mono<SpendResult> commit(Reservation reservation) {
		return commit(reservation, reservation.amount());
	}

	/**
	 * Returns a reservation's money; does nothing when it was already settled.
	 * @param reservation the reservation
	 * @return completes once released
	 */
	Mono<Void> release(Reservation reservation);

}
