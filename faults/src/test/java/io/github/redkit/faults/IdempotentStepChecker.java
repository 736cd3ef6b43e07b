package io.github.redkit.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import io.github.redkit.faults.IdempotentStepScenario.Claimed;
import io.github.redkit.faults.IdempotentStepScenario.Completion;
import io.github.redkit.idempotency.StepOutcome;

/**
 * Judges a history of idempotent steps against the README, step by step. Facts that need
 * Redis to remember (a claim, a completion) are compared only within one view of its
 * memory ({@link Epochs}), which a loss of data or a step of Redis' clock forward ends
 * and a step back does not (it only lengthens leases); a claim's lease is placed on this
 * machine's clock from below (its script ran after it was invoked) when it must still
 * hold, and from above (its script ran before it answered, or within a late delivery of
 * an unknown call) when it may still hold.
 */
final class IdempotentStepChecker {

	/** How late a call whose caller gave up may still run: the longest fault and more. */
	private static final long LATE = Duration.ofMillis(3000).toNanos();

	/** Redis' clock and this machine's are read at slightly different moments. */
	private static final long MARGIN = Duration.ofMillis(20).toNanos();

	private final History history;

	private final long lease;

	private final List<String> violations = new ArrayList<>();

	IdempotentStepChecker(History history, Duration lease) {
		this.history = history;
		this.lease = lease.toNanos();
	}

	List<String> violations() {
		Map<String, List<Op>> bySteps = this.history.ops().stream().collect(Collectors.groupingBy(Op::key));
		bySteps.forEach(this::check);
		if (this.history.ops().stream().noneMatch((op) -> op.action().equals("complete") && op.ok())) {
			this.violations.add("no step was ever completed: the run judged nothing");
		}
		return this.violations.stream().distinct().toList();
	}

	private void check(String step, List<Op> ops) {
		// a step of Redis' clock forward ends leases set before it early: claims across
		// it
		// are not judged together; a step back only makes leases and records last longer,
		// so it splits nothing
		List<FaultRecord> forgetting = this.history.forgetting()
			.stream()
			.filter((fault) -> !fault.stepsClockBack())
			.toList();
		List<Set<Op>> views = Epochs.views(ops, forgetting).stream().map((view) -> {
			Set<Op> set = Collections.newSetFromMap(new IdentityHashMap<>());
			set.addAll(view);
			return set;
		}).toList();
		Steps steps = new Steps(step, ops, views);
		for (Op claim : ops) {
			if (!claim.action().startsWith("claim")) {
				continue;
			}
			if (claim.ok()) {
				checkGranted(steps, claim);
			}
			else if (claim.outcome() == Outcome.REFUSED) {
				Claimed claimed = (Claimed) claim.value();
				switch (claimed.outcome()) {
					case DUPLICATE -> checkReplay(steps, claim, claimed.stored());
					case IN_PROGRESS -> checkInProgress(steps, claim);
					default -> this.violations.add(step + ": " + claimed.outcome() + " for a first step: " + claim);
				}
			}
		}
		for (Op op : ops) {
			if (op.action().equals("complete") && op.ok()) {
				checkCompleted(steps, op);
			}
			if (op.action().equals("result") && op.ok()) {
				checkResultRead(steps, op);
			}
		}
	}

	/**
	 * A granted claim: never while the step is done, never while another claim certainly
	 * holds its lease.
	 */
	private void checkGranted(Steps steps, Op granted) {
		String effect = steps.applied(token(granted)) ? " (and its effect was applied again)" : "";
		for (Op done : steps.completed()) {
			if (done.completed() < granted.invoked() && steps.together(done, granted)) {
				this.violations.add(String.format("%s: claimed after it was done%s:%n    %s%n    %s", steps.step,
						effect, done, granted));
			}
		}
		for (Op other : steps.granted()) {
			if (other == granted || other.completed() >= granted.invoked() || !steps.together(other, granted)) {
				continue;
			}
			String token = token(other);
			long leaseFrom = other.invoked();
			for (Op extend : steps.byToken(token, "extend")) {
				if (extend.ok() && extend.completed() < granted.invoked()) {
					leaseFrom = Math.max(leaseFrom, extend.invoked());
				}
			}
			boolean mayHaveEnded = steps.ends(token).stream().anyMatch((end) -> end.invoked() < granted.completed());
			if (!mayHaveEnded && granted.completed() + MARGIN < leaseFrom + this.lease) {
				this.violations
					.add(String.format("%s: claimed while another claim's lease certainly held%s:%n    %s%n" + "    %s",
							steps.step, effect, other, granted));
			}
		}
	}

	/**
	 * A completion by a claim: refused once another claim was granted the step after it.
	 */
	private void checkCompleted(Steps steps, Op completion) {
		String token = token(completion);
		Op own = steps.granted().stream().filter((claim) -> token.equals(token(claim))).findFirst().orElse(null);
		if (own == null) {
			return;
		}
		for (Op other : steps.granted()) {
			if (other != own && other.invoked() > own.completed() && other.completed() < completion.invoked()
					&& steps.together(other, completion)) {
				this.violations
					.add(String.format("%s: a holder whose claim was taken over completed:%n    %s%n    %s%n    %s",
							steps.step, own, other, completion));
			}
		}
	}

	/**
	 * A duplicate replays what its completer stored.
	 */
	private void checkReplay(Steps steps, Op duplicate, String stored) {
		if (stored == null || !steps.results().contains(stored)) {
			this.violations.add(
					String.format("%s: a duplicate replayed a result no completion stored: %s", steps.step, duplicate));
			return;
		}
		for (Op done : steps.completed()) {
			if (done.completed() < duplicate.invoked() && steps.together(done, duplicate)
					&& !stored.equals(json(done))) {
				this.violations.add(String.format(
						"%s: a duplicate replayed another result than its completer's:%n" + "    %s%n    %s",
						steps.step, done, duplicate));
			}
		}
	}

	private void checkResultRead(Steps steps, Op read) {
		String value = (String) read.value();
		if (value != null && !steps.results().contains("\"" + value + "\"")) {
			this.violations.add(String.format("%s: read a result no completion stored: %s", steps.step, read));
			return;
		}
		for (Op done : steps.completed()) {
			if (done.completed() < read.invoked() && steps.together(done, read)
					&& !("\"" + value + "\"").equals(json(done))) {
				this.violations.add(String.format("%s: read another result than its completer's:%n    %s%n    %s",
						steps.step, done, read));
			}
		}
	}

	/**
	 * {@code IN_PROGRESS} only while a claim may still hold its lease, and never once the
	 * step is done.
	 */
	private void checkInProgress(Steps steps, Op refused) {
		for (Op done : steps.completed()) {
			if (done.completed() < refused.invoked() && steps.together(done, refused)) {
				this.violations.add(
						String.format("%s: IN_PROGRESS after it was done:%n    %s%n    %s", steps.step, done, refused));
				return;
			}
		}
		for (Op holder : steps.ops) {
			if (holder == refused || !holder.action().startsWith("claim") || holder.invoked() >= refused.completed()
					|| !(holder.ok() || holder.unknown())) {
				continue;
			}
			long leaseFrom = holder.completed() + (holder.unknown() ? LATE : 0);
			String token = holder.ok() ? token(holder) : null;
			if (token != null) {
				for (Op extend : steps.byToken(token, "extend")) {
					if (extend.invoked() < refused.completed() && !(extend.outcome() == Outcome.REFUSED)) {
						leaseFrom = Math.max(leaseFrom, extend.completed() + (extend.unknown() ? LATE : 0));
					}
				}
			}
			long until = leaseFrom + this.lease + stepsBack(holder.invoked(), refused.completed()) + MARGIN;
			if (until > refused.invoked() && !certainlyEnded(steps, holder, token, refused)) {
				return;
			}
		}
		this.violations
			.add(String.format("%s: IN_PROGRESS with no claim that could hold the step: %s", steps.step, refused));
	}

	private boolean certainlyEnded(Steps steps, Op holder, String token, Op refused) {
		if (token == null) {
			return false;
		}
		return steps.ends(token)
			.stream()
			.anyMatch((end) -> end.ok() && end.invoked() > holder.completed() && end.completed() < refused.invoked()
					&& !mayBeUndone(end, refused));
	}

	/**
	 * Whether a restart on a snapshot taken before the end, and made before the refusal,
	 * may have brought the claim back.
	 */
	private boolean mayBeUndone(Op end, Op refused) {
		return this.history.faults()
			.stream()
			.anyMatch((fault) -> fault.event().fault().keepsWhatCameBefore() && fault.started() < end.completed()
					&& end.invoked() < fault.healed() && fault.started() < refused.completed());
	}

	/**
	 * How much longer a lease may have lasted because Redis' clock stepped back between
	 * two moments.
	 */
	private long stepsBack(long from, long to) {
		return this.history.faults()
			.stream()
			.filter((fault) -> fault.event().fault() == Fault.CLOCK_JUMP && fault.healed() >= from
					&& fault.started() <= to)
			.mapToLong((fault) -> Math.max(0, -fault.event().strength()) * 1_000_000)
			.sum();
	}

	static String token(Op op) {
		if (op.value() instanceof Claimed claimed) {
			return claimed.token();
		}
		return (op.value() instanceof Completion completion) ? completion.token() : null;
	}

	private static String json(Op completion) {
		return "\"" + ((Completion) completion.value()).result() + "\"";
	}

	/**
	 * The operations on one step and the views of Redis' memory they fall in.
	 */
	private static final class Steps {

		private final String step;

		private final List<Op> ops;

		private final List<Set<Op>> views;

		private final List<Op> granted;

		private final List<Op> completed;

		private final Set<String> results;

		private final Map<String, List<Op>> byToken;

		private final List<Op> abandonedAny;

		Steps(String step, List<Op> ops, List<Set<Op>> views) {
			this.step = step;
			this.ops = ops;
			this.views = views;
			this.granted = ops.stream().filter((op) -> op.action().startsWith("claim") && op.ok()).toList();
			this.completed = ops.stream().filter((op) -> op.action().equals("complete") && op.ok()).toList();
			this.results = ops.stream()
				.filter((op) -> op.action().equals("complete") && op.outcome() != Outcome.REFUSED)
				.map(IdempotentStepChecker::json)
				.collect(Collectors.toSet());
			this.byToken = ops.stream()
				.filter((op) -> !op.action().startsWith("claim") && token(op) != null)
				.collect(Collectors.groupingBy(IdempotentStepChecker::token));
			this.abandonedAny = ops.stream().filter((op) -> op.action().equals("abandon-any")).toList();
		}

		boolean together(Op one, Op other) {
			return this.views.stream().anyMatch((view) -> view.contains(one) && view.contains(other));
		}

		List<Op> granted() {
			return this.granted;
		}

		List<Op> completed() {
			return this.completed;
		}

		Set<String> results() {
			return this.results;
		}

		List<Op> byToken(String token, String action) {
			return this.byToken.getOrDefault(token, List.of())
				.stream()
				.filter((op) -> op.action().equals(action))
				.toList();
		}

		boolean applied(String token) {
			return byToken(token, "apply").stream().anyMatch(Op::ok);
		}

		/**
		 * What may have ended a claim: its own completion or abandon, whatever their
		 * outcome, and an abandon of whichever claim holds the step.
		 */
		List<Op> ends(String token) {
			List<Op> ends = new ArrayList<>(this.abandonedAny);
			ends.addAll(byToken(token, "complete"));
			ends.addAll(byToken(token, "abandon"));
			return ends;
		}

	}

}
