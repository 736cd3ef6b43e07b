package io.github.redkit.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

import io.github.redkit.faults.BudgetScenario.Change;

/**
 * Judges a history of budget changes against the README. Answers to one operation id are
 * compared within one view of Redis' memory ({@link Epochs}); the final balance is
 * explained by what the last memory holds: a change answered within it counts as
 * answered, one answered before Redis restarted empty counts for nothing, and every other
 * one (unknown, in flight across a fault, or answered in the window a restart on an older
 * snapshot lost) either applied or not, an operation id at most once. A spend of the
 * budget with a local allowance counts from when its batch may have been taken, up to a
 * max-age before it; that budget's batches are judged as sent to Redis: each id taken
 * once, given back at most once within one memory, never more than it took, and a batch
 * whose answer was lost, or a give-back Redis did not answer, given back in the end.
 */
final class BudgetChecker {

	/** How late a call whose caller gave up may still run: the longest fault and more. */
	private static final long LATE = Duration.ofMillis(3000).toNanos();

	private static final Set<String> CHANGES = Set.of("spend", "spend-anon", "refund", "commit");

	private final History history;

	private final Map<String, Long> budgets;

	private final String allowance;

	private final List<String> violations = new ArrayList<>();

	BudgetChecker(History history, Map<String, Long> budgets, String allowance) {
		this.history = history;
		this.budgets = budgets;
		this.allowance = allowance;
	}

	/**
	 * How long before a spend its amount may have been spent in Redis: a spend of the
	 * allowance's budget may be served from a batch taken up to max-age before it (with a
	 * margin for a busy machine).
	 */
	private long counted(Op op) {
		return op.invoked() - ((op.key().equals(this.allowance) && op.action().equals("spend-anon"))
				? 2 * BudgetScenario.MAX_AGE_MILLIS * 1_000_000 : 0);
	}

	List<String> violations() {
		Map<String, List<Op>> byBudget = this.history.ops().stream().collect(Collectors.groupingBy(Op::key));
		byBudget.forEach((budget, ops) -> {
			List<Op> changes = ops.stream().filter((op) -> !op.action().equals("final")).toList();
			List<Set<Op>> views = Epochs.views(changes, this.history.forgetting(), this::counted)
				.stream()
				.map((view) -> {
					Set<Op> set = Collections.newSetFromMap(new IdentityHashMap<>());
					set.addAll(view);
					return set;
				})
				.toList();
			long initial = this.budgets.get(budget);
			checkReplays(budget, changes, views);
			checkSpent(budget, initial, changes, views);
			checkFinal(budget, initial, ops);
			checkNeverBelowZero(budget, ops);
			if (budget.equals(this.allowance)) {
				new BatchRules(budget, ops, views).check();
				checkDeadlines(budget, ops);
			}
		});
		if (this.history.ops().stream().noneMatch((op) -> op.action().equals("spend") && op.ok())) {
			this.violations.add("no spend was ever acknowledged: the run judged nothing");
		}
		return this.violations.stream().distinct().toList();
	}

	/**
	 * Every answer to one operation id within one memory is the first answer: a spend,
	 * refund or reserve replays it (the same balance, the same reservation); a commit
	 * that applied replays its answer to every later commit of the reservation.
	 */
	private void checkReplays(String budget, List<Op> ops, List<Set<Op>> views) {
		Map<String, List<Op>> byId = new LinkedHashMap<>();
		for (Op op : ops) {
			if (op.value() instanceof Change change && change.applied() != null && (op.action().equals("spend")
					|| op.action().equals("refund") || op.action().equals("reserve") || op.action().equals("commit"))) {
				byId.computeIfAbsent(op.action() + " " + change.id(), (id) -> new ArrayList<>()).add(op);
			}
		}
		byId.forEach((id, attempts) -> {
			for (Set<Op> view : views) {
				List<Op> seen = attempts.stream().filter(view::contains).toList();
				Op first = seen.stream()
					.filter((op) -> !op.action().equals("commit") || op.ok())
					.findFirst()
					.orElse(null);
				if (first == null) {
					continue;
				}
				for (Op other : seen) {
					boolean later = !other.action().equals("commit") || other.invoked() > first.completed();
					if (other != first && later && !same((Change) first.value(), (Change) other.value())) {
						this.violations.add(String.format("%s: a replayed %s answered differently:%n    %s%n    %s",
								budget, id, first, other));
					}
				}
			}
		});
	}

	private static boolean same(Change first, Change other) {
		return Objects.equals(first.applied(), other.applied()) && first.remaining() == other.remaining()
				&& first.detail().equals(other.detail());
	}

	/**
	 * Within one memory, the acknowledged spends and commits never exceed the budget plus
	 * every refund that may have applied.
	 */
	private void checkSpent(String budget, long initial, List<Op> ops, List<Set<Op>> views) {
		long refunds = ops.stream()
			.filter((op) -> op.action().equals("refund") && op.outcome() != Outcome.REFUSED)
			.collect(Collectors.toMap((op) -> ((Change) op.value()).id(), Op::amount, (a, b) -> a))
			.values()
			.stream()
			.mapToLong(Long::longValue)
			.sum();
		for (Set<Op> view : views) {
			long spent = ops.stream()
				.filter((op) -> view.contains(op) && op.ok()
						&& (op.action().startsWith("spend") || op.action().equals("commit")))
				.collect(Collectors.toMap((op) -> op.action() + " " + ((Change) op.value()).id(), Op::amount,
						(a, b) -> a))
				.values()
				.stream()
				.mapToLong(Long::longValue)
				.sum();
			if (spent > initial + refunds) {
				this.violations.add(String.format(
						"%s: %d acknowledged as spent within one memory of Redis, more than the budget %d plus every "
								+ "refund that may have applied (%d)",
						budget, spent, initial, refunds));
			}
		}
	}

	/**
	 * The final balance is the budget, changed by each change the last memory holds: the
	 * answered ones as answered, the others applied or not.
	 */
	private void checkFinal(String budget, long initial, List<Op> ops) {
		Object read = ops.stream().filter((op) -> op.action().equals("final")).findFirst().map(Op::value).orElse(null);
		List<FaultRecord> faults = this.history.faults();
		FaultRecord lastEmpty = faults.stream()
			.filter((fault) -> fault.event().fault() == Fault.RESTART_EMPTY)
			.reduce((first, second) -> second)
			.orElse(null);
		if (!(read instanceof Long balance)) {
			if (!"gone".equals(read) || lastEmpty == null) {
				this.violations.add(budget + ": the final balance could not be read: " + read);
			}
			return;
		}
		Map<String, List<Op>> groups = new LinkedHashMap<>();
		for (Op op : ops) {
			if (CHANGES.contains(op.action()) && !(op.value() instanceof Change change && change.applied() == null
					&& op.outcome() == Outcome.REFUSED)) {
				groups.computeIfAbsent(op.action() + " " + ((Change) op.value()).id(), (id) -> new ArrayList<>())
					.add(op);
			}
		}
		long fixed = 0;
		List<Long> unknown = new ArrayList<>();
		for (List<Op> attempts : groups.values()) {
			List<Op> relevant = attempts.stream()
				.filter((op) -> lastEmpty == null || until(op) >= lastEmpty.started())
				.toList();
			if (relevant.isEmpty()) {
				continue;
			}
			long delta = (relevant.get(0).action().equals("refund") ? 1 : -1) * relevant.get(0).amount();
			Op certain = relevant.stream().filter((op) -> certain(op, lastEmpty)).findFirst().orElse(null);
			if (certain != null) {
				fixed += certain.ok() ? delta : 0;
			}
			else if (delta != 0) {
				unknown.add(delta);
			}
		}
		if (!reachable(balance - initial - fixed, unknown)) {
			this.violations.add(String.format(
					"%s: final balance %d is not the budget %d %+d (the changes answered within Redis' last memory) "
							+ "plus any choice of the %d others (%s)",
					budget, balance, initial, fixed, unknown.size(), unknown));
		}
	}

	/**
	 * Whether a change ran within Redis' last memory and its answer is known: answered,
	 * after Redis last restarted empty, and not in the window a restart on an older
	 * snapshot lost.
	 */
	private boolean certain(Op op, FaultRecord lastEmpty) {
		if (op.unknown() || (lastEmpty != null && counted(op) <= lastEmpty.healed())) {
			return false;
		}
		return this.history.faults()
			.stream()
			.filter((fault) -> fault.event().fault().keepsWhatCameBefore())
			.allMatch((fault) -> op.completed() < fault.started() || counted(op) > fault.healed());
	}

	/**
	 * No answer ever shows a balance below zero, nor does the final read.
	 */
	private void checkNeverBelowZero(String budget, List<Op> ops) {
		for (Op op : ops) {
			// a release answers no balance (recorded as -1)
			boolean below = (op.value() instanceof Change change && change.applied() != null
					&& !op.action().equals("release") && change.remaining() < 0)
					|| (op.value() instanceof Long balance && balance < 0);
			if (below) {
				this.violations.add(budget + ": a balance below zero: " + op);
			}
		}
	}

	/**
	 * Every spend ended within its deadline: none hung (still under way at the settle,
	 * its detail says so), none took longer.
	 */
	private void checkDeadlines(String budget, List<Op> ops) {
		long deadline = BudgetScenario.DEADLINE_MILLIS * 1_000_000;
		for (Op op : ops) {
			boolean hung = op.value() instanceof Change change && "hung".equals(change.detail());
			if (op.action().startsWith("spend") && (hung || op.completed() - op.invoked() > deadline)) {
				this.violations.add(String.format("%s: a spend %s its deadline of %d ms: %s", budget,
						hung ? "never ended, past" : "ended past", BudgetScenario.DEADLINE_MILLIS, op));
			}
		}
	}

	private static long until(Op op) {
		return op.completed() + (op.unknown() ? LATE : 0);
	}

	/**
	 * The batches of the local allowance, as sent to Redis: each id taken by one spend; a
	 * give-back never larger than a batch, only for a batch that was taken (or whose
	 * answer was lost), applied at most once within one memory of Redis; a batch whose
	 * answer was lost is given back whole, and every batch given back ends with a
	 * give-back Redis answered (one it did not answer is sent again). Lost means lost to
	 * the instance: no answer came to it ({@link BatchRecorder.Sent#lost()}, read from
	 * what was sent, so a recorded run is judged by it too).
	 */
	private final class BatchRules {

		private final String budget;

		private final List<Set<Op>> views;

		private final Map<String, List<Op>> taken = new LinkedHashMap<>();

		private final Map<String, List<Op>> givenBack = new LinkedHashMap<>();

		BatchRules(String budget, List<Op> ops, List<Set<Op>> views) {
			this.budget = budget;
			this.views = views;
			for (Op op : ops) {
				if (op.value() instanceof BatchRecorder.Sent sent) {
					(op.action().equals("batch") ? this.taken : this.givenBack)
						.computeIfAbsent(sent.id(), (id) -> new ArrayList<>())
						.add(op);
				}
			}
		}

		void check() {
			if (this.taken.isEmpty()) {
				BudgetChecker.this.violations.add(this.budget + ": no batch was taken: the run judged no allowance");
			}
			this.taken.forEach((id, takes) -> {
				if (takes.size() > 1) {
					violation("a batch id reused: %d batches taken as %s:%n    %s", takes.size(), id, lines(takes));
				}
				List<Op> backs = this.givenBack.getOrDefault(id, List.of());
				boolean lost = takes.stream().anyMatch(BatchRules::lost);
				if (lost && backs.stream().noneMatch((op) -> !lost(op) && op.amount() == BudgetScenario.BATCH)) {
					violation("a batch whose answer was lost was not given back whole: %s%n    %s", id,
							lines(concat(takes, backs)));
				}
				if (!backs.isEmpty() && lost(backs.get(backs.size() - 1))) {
					violation("a give-back Redis did not answer was not sent again: %s%n    %s", id,
							lines(concat(takes, backs)));
				}
			});
			this.givenBack.forEach((id, backs) -> {
				List<Op> takes = this.taken.getOrDefault(id, List.of());
				if (takes.stream().allMatch((op) -> op.outcome() == Outcome.REFUSED)
						&& backs.stream().anyMatch(BatchRules::appliedNow)) {
					violation("a give-back applied for a batch never taken: %s%n    %s", id,
							lines(concat(takes, backs)));
				}
				for (Op back : backs) {
					if (back.amount() > BudgetScenario.BATCH) {
						violation("a give-back larger than a batch: %s", back);
					}
				}
				for (Set<Op> view : this.views) {
					List<Op> applied = backs.stream().filter((op) -> view.contains(op) && appliedNow(op)).toList();
					if (applied.size() > 1) {
						violation("a batch given back %d times within one memory of Redis: %s%n    %s", applied.size(),
								id, lines(concat(takes, backs)));
					}
				}
			});
		}

		private static boolean lost(Op op) {
			return ((BatchRecorder.Sent) op.value()).lost();
		}

		private static boolean appliedNow(Op op) {
			return ((BatchRecorder.Sent) op.value()).appliedNow();
		}

		private void violation(String format, Object... args) {
			BudgetChecker.this.violations.add(this.budget + ": " + String.format(format, args));
		}

		private static List<Op> concat(List<Op> first, List<Op> second) {
			List<Op> all = new ArrayList<>(first);
			all.addAll(second);
			return all;
		}

		private static String lines(List<Op> ops) {
			return ops.stream().map(Op::toString).collect(Collectors.joining("\n    "));
		}

	}

	/**
	 * Whether some choice of the unknown changes adds up to the target.
	 */
	static boolean reachable(long target, List<Long> unknown) {
		long below = unknown.stream().filter((delta) -> delta < 0).mapToLong((delta) -> -delta).sum();
		long above = unknown.stream().filter((delta) -> delta > 0).mapToLong(Long::longValue).sum();
		if (target < -below || target > above) {
			return false;
		}
		boolean[] sums = new boolean[(int) (below + above + 1)];
		sums[(int) below] = true;
		for (long delta : unknown) {
			boolean[] next = sums.clone();
			for (int i = 0; i < sums.length; i++) {
				int j = (int) (i + delta);
				if (sums[i] && j >= 0 && j < sums.length) {
					next[j] = true;
				}
			}
			sums = next;
		}
		return sums[(int) (target + below)];
	}

}
