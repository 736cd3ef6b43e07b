package io.github.redkit.upgrade;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

import io.github.redkit.budget.Budgets;
import io.github.redkit.budget.Reservation;
import io.github.redkit.budget.SpendResult;

/**
 * Spends, refunds and reserves on one budget. Operation ids come from a space every
 * instance shares, so that a call first applied by one version is retried on the other (a
 * request retried on an upgraded instance); an id's amount follows from the id, as a
 * retry's would.
 */
final class BudgetLoad {

	static final String BUDGET = "upgrade-budget";

	static final long AMOUNT = 1_000_000_000L;

	// few enough that an id first applied by one version is retried by the other (the
	// checker fails a run where none was)
	private static final int IDS = 200;

	private final Budgets budgets;

	private final HistoryLog history;

	BudgetLoad(Budgets budgets, HistoryLog history) {
		this.budgets = budgets;
		this.history = history;
	}

	void create() {
		this.history.call("budget", "create", BUDGET, () -> this.budgets.create(BUDGET, AMOUNT), (created, fields) -> {
			fields.put("outcome", "ok");
			fields.put("created", created);
		});
	}

	static long amountOf(String id) {
		return 1 + Math.floorMod(id.hashCode(), 5);
	}

	/**
	 * What a reservation of this id is committed with, at most its amount.
	 * @param id the operation id
	 * @return the actual amount
	 */
	static long actualOf(String id) {
		return 1 + Math.floorMod(id.hashCode() / 5, amountOf(id));
	}

	void step() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		int choice = random.nextInt(10);
		String id = "op-" + random.nextInt(IDS);
		long amount = amountOf(id);
		if (choice < 5) {
			spend("spend", id, amount, () -> this.budgets.spend(BUDGET, amount, "s-" + id));
		}
		else if (choice < 6) {
			// no operation id of the caller's: each call is a change of its own
			spend("spend-anon", "anon-" + HistoryLog.micros() + "-" + random.nextInt(), amount,
					() -> this.budgets.spend(BUDGET, amount));
		}
		else if (choice < 7) {
			spend("refund", id, amount, () -> this.budgets.refund(BUDGET, amount, "r-" + id));
		}
		else {
			reserveAndSettle(id, amount);
		}
	}

	private void spend(String op, String id, long amount, java.util.concurrent.Callable<SpendResult> call) {
		this.history.call("budget", op, BUDGET, call, (result, fields) -> {
			fields.put("outcome", result.applied() ? "ok" : "refused");
			fields.put("id", id);
			fields.put("amount", amount);
			fields.put("remaining", result.remaining());
		});
	}

	private void reserveAndSettle(String id, long amount) {
		Optional<Reservation> reservation = this.history.call("budget", "reserve", BUDGET,
				() -> this.budgets.reserve(BUDGET, amount, Duration.ofMinutes(5), "v-" + id), (reserved, fields) -> {
					fields.put("outcome", reserved.isPresent() ? "ok" : "refused");
					fields.put("id", id);
					fields.put("amount", amount);
					reserved.ifPresent((held) -> fields.put("reservation", held.id()));
				});
		if (reservation == null || reservation.isEmpty()) {
			return;
		}
		Reservation held = reservation.get();
		// what a retry would settle with: the same as the first attempt
		long actual = actualOf(id);
		if (Math.floorMod(id.hashCode(), 3) != 0) {
			spend("commit", held.id(), actual, () -> this.budgets.commit(held, actual));
		}
		else {
			this.history.call("budget", "release", BUDGET, () -> {
				this.budgets.release(held);
				return true;
			}, (released, fields) -> {
				fields.put("outcome", "ok");
				fields.put("id", held.id());
			});
		}
	}

	void finish() {
		this.history.call("budget", "final", BUDGET, () -> this.budgets.remaining(BUDGET), (remaining, fields) -> {
			fields.put("outcome", "ok");
			fields.put("remaining", remaining);
		});
	}

}
