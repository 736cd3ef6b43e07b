package io.github.redkit.budget.internal;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import io.github.redkit.budget.BudgetNotFoundException;
import io.github.redkit.budget.BudgetOverflowException;
import io.github.redkit.budget.SpendResult;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.LocalBatchLifecycle;
import io.github.redkit.core.internal.LocalBatchSlot;
import io.github.redkit.core.internal.LocalBatchStop;
import io.github.redkit.core.internal.RandomIds;
import io.github.redkit.core.internal.RedisScriptRunner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Hands out spends of hot budgets from batches this instance took from Redis: the first
 * spend takes {@code size} in one idempotent spend, the spends after it are served from
 * the batch in this process for at most {@code max-age}, and what is left then is
 * refunded (at its max-age, whether or not a spend comes) (idempotently, under the
 * batch's operation id, and only into a Redis that still holds the record of the batch's
 * spend). Every amount handed out was taken from the balance first, so a budget never
 * goes below zero; the price is the amounts held unused, at most one batch per instance
 * and budget, and a balance that reads lower by them. A batch the balance cannot cover
 * sends that budget's spends to Redis one by one for {@code max-age}. A batch whose
 * answer was lost (Redis may have spent it) is given back whole, and a give-back Redis
 * did not answer is sent again until it does: each is idempotent under the batch's id,
 * and applies only if the batch's spend did.
 */
final class BudgetAllowances {

	private static final Log logger = LogFactory.getLog(BudgetAllowances.class);

	private final Map<String, BudgetAllowance> allowances;

	private final Budget budget;

	private final RedkitMetrics metrics;

	private final LongSupplier clock;

	private final Map<String, Holder> holders = new ConcurrentHashMap<>();

	// once stopping, no batch is taken or kept, and give-backs Redis has not answered
	// are retried and awaited only for the patience
	private final LocalBatchStop stop;

	private final LocalBatchLifecycle lifecycle;

	// called between a batch's leaving its slot and its give-back (tests hold a thread
	// there)
	private volatile Consumer<String> retired = (budgetId) -> {
	};

	/**
	 * Creates the allowances of the budgets that have one.
	 * @param allowances the allowances, by budget id
	 * @param budget spends and refunds in Redis
	 * @param metrics counts batches and amounts
	 * @param clock monotonic nanoseconds, as {@link System#nanoTime()}
	 * @param patience how long stopping waits for the give-backs Redis has not answered
	 */
	BudgetAllowances(Map<String, BudgetAllowance> allowances, Budget budget, RedkitMetrics metrics, LongSupplier clock,
			Duration patience) {
		this.allowances = Map.copyOf(allowances);
		this.budget = budget;
		this.metrics = metrics;
		this.clock = clock;
		this.stop = new LocalBatchStop(clock);
		this.lifecycle = new LocalBatchLifecycle(this.stop, patience, this::giveBackAll);
	}

	/**
	 * Calls {@code retired} with the budget id between a retired batch's leaving its slot
	 * and its give-back: for tests that hold a thread there.
	 * @param retired what is called
	 */
	void whenRetired(Consumer<String> retired) {
		this.retired = retired;
	}

	/**
	 * The allowance of a spend, if its budget has one and the amount fits a batch.
	 * @param budgetId the budget
	 * @param amount the amount
	 * @return the allowance, or {@code null} when the spend goes to Redis itself
	 */
	@Nullable BudgetAllowance of(String budgetId, long amount) {
		if (this.allowances.isEmpty()) {
			return null;
		}
		BudgetAllowance allowance = this.allowances.get(budgetId);
		return (allowance != null && amount <= allowance.size()) ? allowance : null;
	}

	/**
	 * Spends from the budget's batch, taking a new one when needed.
	 * @param budgetId the budget
	 * @param allowance its allowance
	 * @param amount the amount
	 * @return the result: applied, and the balance less what this instance still holds
	 */
	CompletableFuture<SpendResult> spend(String budgetId, BudgetAllowance allowance, long amount) {
		return this.holders.computeIfAbsent(budgetId, (id) -> new Holder()).spend(budgetId, allowance, amount);
	}

	/**
	 * The lifecycle the budgets delegate to: started (again), give-backs are retried for
	 * as long as Redis does not answer; once stopped, what every batch still holds is
	 * refunded, and every batch taken from then on (spends go to Redis one by one until
	 * started again), and the stop waits (at most the patience) for the batches being
	 * taken and every give-back Redis has not answered yet.
	 * @return the lifecycle
	 */
	LocalBatchLifecycle lifecycle() {
		return this.lifecycle;
	}

	private void giveBackAll() {
		this.holders.forEach((budgetId, holder) -> {
			LocalBatchSlot.Retired<Batch> batch = holder.release();
			if (batch != null) {
				batch.giveBack((released) -> giveBack(budgetId, released));
			}
		});
	}

	private void giveBack(String budgetId, Batch batch) {
		if (batch.left > 0) {
			giveBack(budgetId, batch.left, batch.operationId, false);
		}
	}

	/**
	 * Gives back what a batch did not hand out, sent again until Redis answers.
	 * @param budgetId the budget
	 * @param amount what is given back
	 * @param operationId the batch's id
	 * @param lost whether the answer to the batch's spend was lost: its spend, if Redis
	 * applied it, is counted when the give-back applies
	 */
	private void giveBack(String budgetId, long amount, String operationId, boolean lost) {
		CompletableFuture<Void> done = this.stop.track(new CompletableFuture<>());
		attempt(budgetId, amount, operationId, lost, done, 1);
	}

	private void attempt(String budgetId, long amount, String operationId, boolean lost, CompletableFuture<Void> done,
			int attempt) {
		CompletableFuture<SpendResult> sent;
		try {
			sent = this.budget.giveBack(budgetId, amount, operationId);
		}
		catch (RuntimeException ex) {
			sent = CompletableFuture.failedFuture(ex);
		}
		sent.whenComplete((result, failure) -> {
			Throwable ex = (failure != null) ? RedisScriptRunner.unwrap(failure) : null;
			if (ex == null) {
				try {
					given(result, amount, lost);
				}
				finally {
					done.complete(null);
				}
			}
			else if (ex instanceof BudgetNotFoundException || ex instanceof BudgetOverflowException) {
				// answered: no budget to give back into, or no room in it
				done.complete(null);
			}
			else if (this.stop.givingUp()) {
				logger.warn("Budget '" + budgetId + "': could not give back " + amount
						+ " its local allowance did not hand out (operation " + operationId + ") before stopping", ex);
				done.complete(null);
			}
			else {
				// Redis away: the same give-back again (idempotent under the batch's id)
				long delay = Math.min(50L << Math.min(attempt, 5), 1_000);
				try {
					CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS)
						.execute(() -> attempt(budgetId, amount, operationId, lost, done, attempt + 1));
				}
				catch (RuntimeException rejected) {
					logger.warn("Budget '" + budgetId + "': could not send again the give-back of " + amount
							+ " (operation " + operationId + ")", rejected);
					done.complete(null);
				}
			}
		});
	}

	private void given(SpendResult result, long amount, boolean lost) {
		if (!result.applied()) {
			return;
		}
		if (lost) {
			// Redis spent the batch whose answer was lost: it was taken after all
			this.metrics.increment(BudgetMeters.ALLOWANCE_BATCHES);
			this.metrics.increment(BudgetMeters.ALLOWANCE_AMOUNTS, amount, "event", "taken");
		}
		this.metrics.increment(BudgetMeters.ALLOWANCE_AMOUNTS, amount, "event", "given-back");
	}

	/**
	 * Spends and refunds in Redis.
	 */
	interface Budget {

		CompletableFuture<SpendResult> spend(String budgetId, long amount);

		CompletableFuture<SpendResult> spend(String budgetId, long amount, String operationId);

		/**
		 * Refunds what a batch did not hand out, only while Redis holds the record of the
		 * batch's spend (under the same operation id).
		 */
		CompletableFuture<SpendResult> giveBack(String budgetId, long amount, String operationId);

	}

	/**
	 * A batch being handed out; guarded by its slot.
	 */
	private static final class Batch {

		final String operationId;

		final long deadline;

		final long remaining;

		long left;

		Batch(String operationId, long deadline, long remaining, long left) {
			this.operationId = operationId;
			this.deadline = deadline;
			this.remaining = remaining;
			this.left = left;
		}

	}

	/**
	 * One budget's batch, and the batch being taken for it.
	 */
	private final class Holder {

		private final LocalBatchSlot<Batch> slot = new LocalBatchSlot<>(BudgetAllowances.this.stop);

		CompletableFuture<SpendResult> spend(String budgetId, BudgetAllowance allowance, long amount) {
			long start = BudgetAllowances.this.clock.getAsLong();
			LocalBatchSlot.Step<Batch, SpendResult> step = this.slot.next(start, (batch) -> {
				if (start > batch.deadline || batch.left < amount) {
					return null;
				}
				batch.left -= amount;
				return new SpendResult(true, batch.remaining + batch.left);
			});
			LocalBatchSlot.Retired<Batch> retired = step.retired();
			if (retired != null) {
				// a stop awaits this give-back since the batch left its slot
				retired.giveBack((batch) -> {
					BudgetAllowances.this.retired.accept(budgetId);
					giveBack(budgetId, batch);
				});
			}
			SpendResult served = step.served();
			if (served != null) {
				BudgetAllowances.this.metrics.increment(BudgetMeters.ALLOWANCE_AMOUNTS, amount, "event", "handed-out");
				return CompletableFuture.completedFuture(served);
			}
			CompletableFuture<Void> taking = step.taking();
			if (step.direct() || taking == null) {
				CompletableFuture<Void> waitFor = step.waitFor();
				return (waitFor != null) ? waitFor.thenCompose((ignored) -> spend(budgetId, allowance, amount))
						: BudgetAllowances.this.budget.spend(budgetId, amount);
			}
			return take(budgetId, allowance, amount, start, taking);
		}

		private CompletableFuture<SpendResult> take(String budgetId, BudgetAllowance allowance, long amount, long start,
				CompletableFuture<Void> taking) {
			String operationId = "allowance:" + RandomIds.next();
			long size = allowance.size();
			CompletableFuture<SpendResult> done = this.slot.take(taking,
					() -> BudgetAllowances.this.budget.spend(budgetId, size, operationId).whenComplete((result, ex) -> {
						if (ex != null && !(RedisScriptRunner.unwrap(ex) instanceof BudgetNotFoundException)) {
							// the answer was lost: Redis may have spent the batch, which
							// no
							// one
							// hands out; given back whole (a no-op unless its spend
							// applied)
							giveBack(budgetId, size, operationId, true);
						}
					}).thenCompose((result) -> {
						if (!result.applied()) {
							this.slot.refusedUntil(start + allowance.maxAge().toNanos());
							return BudgetAllowances.this.budget.spend(budgetId, amount);
						}
						BudgetAllowances.this.metrics.increment(BudgetMeters.ALLOWANCE_BATCHES);
						BudgetAllowances.this.metrics.increment(BudgetMeters.ALLOWANCE_AMOUNTS, size, "event", "taken");
						BudgetAllowances.this.metrics.increment(BudgetMeters.ALLOWANCE_AMOUNTS, amount, "event",
								"handed-out");
						Batch batch = new Batch(operationId, start + allowance.maxAge().toNanos(), result.remaining(),
								size - amount);
						LocalBatchSlot.Retired<Batch> replaced = this.slot.taken(batch);
						if (replaced != null) {
							replaced.giveBack((given) -> giveBack(budgetId, given));
						}
						if (replaced == null || replaced.batch() != batch) {
							endAtItsDeadline(budgetId, batch);
						}
						return CompletableFuture
							.completedFuture(new SpendResult(true, result.remaining() + batch.left));
					}));
			// the caller gets a copy: cancelling it (a subscriber that gave up) must not
			// cancel the stages that install the batch and let the waiting spends go on
			return done.copy();
		}

		LocalBatchSlot.@Nullable Retired<Batch> release() {
			return this.slot.release(null);
		}

		/**
		 * Gives the batch back at its deadline if no spend came to retire it: Redis keeps
		 * the record of the batch's spend, without which a give-back is refused, only for
		 * the operation ttl (more than twice max-age), so an idle batch must not wait for
		 * the next spend or the application's stop. No round trip is added: a batch with
		 * something left is given back once, now or later.
		 */
		private void endAtItsDeadline(String budgetId, Batch batch) {
			long delay = Math.max(0, batch.deadline - BudgetAllowances.this.clock.getAsLong());
			try {
				CompletableFuture.delayedExecutor(delay, TimeUnit.NANOSECONDS).execute(() -> {
					// a stop awaits this give-back from the moment the batch left its
					// slot
					LocalBatchSlot.Retired<Batch> ended = this.slot.retire(batch);
					if (ended != null) {
						ended.giveBack((given) -> {
							BudgetAllowances.this.retired.accept(budgetId);
							giveBack(budgetId, given);
						});
					}
				});
			}
			catch (RuntimeException ex) {
				// not scheduled: the next spend or the stop gives it back, as before
				logger.debug("Budget '" + budgetId + "': the end of a batch could not be scheduled", ex);
			}
		}

	}

}
