package io.github.redkit.budget.internal;

import org.jspecify.annotations.Nullable;

/**
 * One change or read of a budget, as the {@code budget_apply} script takes it.
 *
 * @param budgetId the budget
 * @param kind the kind of operation an operation id is remembered for ({@code spend},
 * {@code refund}, {@code reserve}, {@code commit}; {@value #ONCE} for an id generated per
 * call, kept only while Lettuce may send the call again), {@code null} when none is
 * @param operationId the caller's operation id, {@code null} when none
 * @param command the script's command ({@code create}, {@code spend}, {@code reserve}...)
 * @param amount the amount, 0 when the command takes none
 * @param id the command's own argument: the replace flag of a creation, a reservation's
 * id, empty when none
 * @param reservationTtl how long a reservation holds, in milliseconds, {@code "0"} when
 * not a reservation
 */
record BudgetCommand(String budgetId, @Nullable String kind, @Nullable String operationId, String command, long amount,
		String id, String reservationTtl) {

	/**
	 * The kind of an operation id generated per call when the caller gives none: it makes
	 * a call that Lettuce sends again after a reconnect apply once.
	 */
	static final String ONCE = "once";

	/**
	 * A command applied once under an operation id generated for this call.
	 * @param budgetId the budget
	 * @param command the script's command ({@code spend}, {@code reserve}, {@code create}
	 * or {@code delete})
	 * @param amount the amount
	 * @param operationId the generated id
	 * @param id the command's own argument (a reservation's id, {@code "1"} to replace),
	 * empty when none
	 * @param reservationTtl how long a reservation holds, in milliseconds, {@code "0"}
	 * when not a reservation
	 * @return the command
	 */
	static BudgetCommand once(String budgetId, String command, long amount, String operationId, String id,
			String reservationTtl) {
		return new BudgetCommand(budgetId, ONCE, operationId, command, amount, id, reservationTtl);
	}

	boolean generatedId() {
		return ONCE.equals(this.kind);
	}

	/**
	 * Whether the command gives back what a caller held: the unused part of a local
	 * allowance's batch, or a reservation's amount.
	 * @return {@code true} for a {@code giveback} or a {@code release}
	 */
	boolean givesBack() {
		return "giveback".equals(this.command) || "release".equals(this.command);
	}

}
