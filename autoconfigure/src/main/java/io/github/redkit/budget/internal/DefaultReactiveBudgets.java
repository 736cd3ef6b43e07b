package io.github.redkit.budget.internal;

import java.time.Duration;

import io.github.redkit.budget.Budgets;
import io.github.redkit.budget.ReactiveBudgets;
import io.github.redkit.budget.Reservation;
import io.github.redkit.budget.SpendResult;
import io.github.redkit.core.internal.ReactiveAcquire;
import reactor.core.publisher.Mono;

/**
 * The {@link ReactiveBudgets} on a {@link Budgets}' asynchronous calls, so that both
 * faces share one implementation of every operation: the same keys, script, checks,
 * exceptions and meters. Each call is sent on subscription.
 */
public class DefaultReactiveBudgets implements ReactiveBudgets {

	private final Budgets budgets;

	/**
	 * Creates the reactive face of budgets.
	 * @param budgets the budgets
	 */
	public DefaultReactiveBudgets(Budgets budgets) {
		this.budgets = budgets;
	}

	@Override
	public Mono<Boolean> create(String budgetId, long amount, boolean replace) {
		return Mono.fromFuture(() -> this.budgets.createAsync(budgetId, amount, replace));
	}

	@Override
	public Mono<Boolean> delete(String budgetId) {
		return Mono.fromFuture(() -> this.budgets.deleteAsync(budgetId));
	}

	@Override
	public Mono<Long> remaining(String budgetId) {
		return Mono.fromFuture(() -> this.budgets.remainingAsync(budgetId));
	}

	@Override
	public Mono<SpendResult> spend(String budgetId, long amount) {
		return Mono.fromFuture(() -> this.budgets.spendAsync(budgetId, amount));
	}

	@Override
	public Mono<SpendResult> spend(String budgetId, long amount, String operationId) {
		return Mono.fromFuture(() -> this.budgets.spendAsync(budgetId, amount, operationId));
	}

	@Override
	public Mono<SpendResult> refund(String budgetId, long amount, String operationId) {
		return Mono.fromFuture(() -> this.budgets.refundAsync(budgetId, amount, operationId));
	}

	@Override
	public Mono<Reservation> reserve(String budgetId, long amount, Duration ttl) {
		// a reservation taken for a subscriber that cancelled is released: nobody knows
		// its id; one with an operation id is kept for the retry that returns it
		return ReactiveAcquire
			.of(() -> this.budgets.reserveAsync(budgetId, amount, ttl),
					(reservation) -> reservation.ifPresent(this.budgets::releaseAsync))
			.flatMap(Mono::justOrEmpty);
	}

	@Override
	public Mono<Reservation> reserve(String budgetId, long amount, Duration ttl, String operationId) {
		return Mono.fromFuture(() -> this.budgets.reserveAsync(budgetId, amount, ttl, operationId))
			.flatMap(Mono::justOrEmpty);
	}

	@Override
	public Mono<SpendResult> commit(Reservation reservation, long actualAmount) {
		return Mono.fromFuture(() -> this.budgets.commitAsync(reservation, actualAmount));
	}

	@Override
	public Mono<Void> release(Reservation reservation) {
		return Mono.fromFuture(() -> this.budgets.releaseAsync(reservation));
	}

}
