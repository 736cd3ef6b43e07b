package io.github.redkit.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Judges a lock history: fencing tokens that go back, a fenced resource whose accepted
 * writers interleave, two holders that both knew they held one key at once, and a refusal
 * with no other acquisition able to hold the key (a lock taken by an acquisition that was
 * told it failed: one delivered again and not recognised, issue 43).
 */
final class LockChecker {

	/**
	 * How long after its caller stopped waiting a blocking acquisition may still land:
	 * Lettuce keeps the command until the connection's command timeout (1 s in the runs).
	 */
	private static final long LATE_NANOS = Duration.ofSeconds(1).toNanos();

	/**
	 * How long after its caller gave up an asynchronous or reactive acquisition may still
	 * land and be released (the library releases what lands for nobody): a round trip and
	 * a reconnect on a busy machine.
	 */
	private static final long GIVEN_UP_NANOS = Duration.ofMillis(300).toNanos();

	private LockChecker() {
	}

	static List<String> check(History history, List<FencedResource.Accepted> accepted) {
		List<String> violations = new ArrayList<>();
		List<Op> ops = history.ops();
		Map<String, List<Op>> locksByKey = ops.stream()
			.filter((op) -> op.action().startsWith("lock") && op.ok())
			.collect(Collectors.groupingBy(Op::key));
		locksByKey.forEach((key, locks) -> tokensIncrease(key, locks, history.faults(), violations));
		Map<String, List<FencedResource.Accepted>> writesByKey = accepted.stream()
			.collect(Collectors.groupingBy(FencedResource.Accepted::key));
		writesByKey.forEach((key, writes) -> writersDoNotInterleave(key, writes, history.faults(), violations));
		Map<String, List<Op>> holdsByKey = ops.stream()
			.filter((op) -> op.action().equals("hold"))
			.collect(Collectors.groupingBy(Op::key));
		// a lease set in Redis just before a clock step forward or a loss of data lives
		// across it, though its holder entered after; a step back only makes leases set
		// before it last longer, so it splits nothing
		List<FaultRecord> endingLeases = history.forgetting()
			.stream()
			.filter((fault) -> !fault.stepsClockBack())
			.toList();
		holdsByKey.forEach((key, holds) -> {
			for (List<Op> view : Epochs.views(holds, endingLeases,
					(hold) -> ((LockScenario.Held) hold.value()).lockInvoked())) {
				oneHolderAtATime(key, view, violations);
			}
		});
		Map<String, List<Op>> byKey = ops.stream().collect(Collectors.groupingBy(Op::key));
		byKey.forEach((key, keyOps) -> refusedOnlyWhileAnotherMayHold(key, keyOps, history.faults(), violations));
		return violations.stream().distinct().toList();
	}

	/**
	 * A refused acquisition met a holder: some other acquisition may have held the key
	 * during the refusal's attempts. A hold runs from its acquisition's start to its
	 * release (a lease later when the release's outcome is unknown); an acquisition whose
	 * outcome is unknown may hold from its start until it could still have landed (the
	 * lasting fault that held it healed) and then, given up by an asynchronous or
	 * reactive caller, until the release the library sends for it (twice a round trip and
	 * a reconnect), or, a blocking call that timed out, until Lettuce's command timeout
	 * and a lease. Not judged: a refusal near a restart on an older snapshot or a
	 * failover to a replica behind (a lock released since comes back held), and a step of
	 * Redis' clock back lengthens every lease by the step.
	 */
	private static void refusedOnlyWhileAnotherMayHold(String key, List<Op> ops, List<FaultRecord> faults,
			List<String> violations) {
		long lease = LockScenario.LEASE.toNanos();
		long stepsBack = faults.stream()
			.filter(FaultRecord::stepsClockBack)
			.mapToLong((fault) -> -fault.event().strength() * 1_000_000)
			.sum();
		List<long[]> held = new ArrayList<>();
		for (Op op : ops) {
			if (op.action().equals("hold") && op.value() instanceof LockScenario.Held hold) {
				Op release = ops.stream()
					.filter((other) -> other.action().equals("release") && other.process() == op.process()
							&& other.amount() == op.amount() && other.invoked() >= op.completed())
					.min(Comparator.comparingLong(Op::invoked))
					.orElse(null);
				long end = (release == null) ? Long.MAX_VALUE / 2
						: release.completed() + (release.unknown() ? lease : 0);
				held.add(new long[] { hold.lockInvoked(), end });
			}
			else if (op.action().startsWith("lock") && op.unknown()) {
				long landed = faults.stream()
					.filter((fault) -> fault.event().fault().lasts() && fault.overlaps(op.invoked(), op.completed()))
					.mapToLong(FaultRecord::healed)
					.reduce(op.completed(), Math::max);
				long late = op.action().equals("lock") ? LATE_NANOS + lease : 2 * GIVEN_UP_NANOS;
				held.add(new long[] { op.invoked(), landed + late });
			}
		}
		for (Op refused : ops) {
			if (!refused.action().startsWith("lock") || refused.outcome() != Outcome.REFUSED
					|| restoredHolds(refused, faults, lease)) {
				continue;
			}
			boolean met = held.stream()
				.anyMatch((hold) -> hold[0] <= refused.completed() && hold[1] + stepsBack >= refused.invoked());
			if (!met) {
				violations
					.add(String.format("%s: refused while no other acquisition could hold it:%n    %s", key, refused));
			}
		}
	}

	private static boolean restoredHolds(Op refused, List<FaultRecord> faults, long lease) {
		return faults.stream()
			.anyMatch((fault) -> fault.event().fault().keepsWhatCameBefore()
					&& fault.overlaps(refused.invoked() - 2 * lease - LATE_NANOS, refused.completed()));
	}

	/**
	 * An acquisition that began after another ended has the higher token. The docs allow
	 * one exception: a token is at least Redis time in microseconds, or one more than the
	 * counter, so Redis that lost its counter (restart empty, older snapshot) while its
	 * clock was behind where it had been may hand out a lower one.
	 */
	private static void tokensIncrease(String key, List<Op> locks, List<FaultRecord> faults, List<String> violations) {
		List<Op> byEnd = new ArrayList<>(locks);
		byEnd.sort(Comparator.comparingLong(Op::completed));
		for (Op later : locks) {
			long token = token(later);
			for (Op earlier : byEnd) {
				if (earlier.completed() >= later.invoked()) {
					break;
				}
				if (token(earlier) >= token && !lostDataWithAClockBehind(earlier, later, faults)) {
					violations.add(String.format("%s: token %d after token %d:%n    %s%n    %s", key, token,
							token(earlier), earlier, later));
					break;
				}
			}
		}
	}

	private static boolean lostDataWithAClockBehind(Op earlier, Op later, List<FaultRecord> faults) {
		boolean lostData = faults.stream()
			.anyMatch((fault) -> (fault.event().fault() == Fault.RESTART_EMPTY
					|| fault.event().fault().keepsWhatCameBefore())
					&& fault.overlaps(earlier.invoked(), later.completed()));
		// the later token may have been taken anywhere in its call: at the clock's lowest
		// offset over it (a step forward while it was answering came after its token)
		return lostData && minClockOffset(faults, later.invoked(), later.completed()) < maxClockOffset(faults,
				earlier.completed());
	}

	private static long minClockOffset(List<FaultRecord> faults, long from, long until) {
		long offset = clockOffset(faults, from);
		long min = offset;
		for (FaultRecord fault : faults.stream().sorted(Comparator.comparingLong(FaultRecord::started)).toList()) {
			if (fault.event().fault() == Fault.CLOCK_JUMP && fault.started() > from && fault.started() <= until) {
				offset += fault.event().strength();
				min = Math.min(min, offset);
			}
		}
		return min;
	}

	// a step back after the loss healed puts the clock behind as much as one before it
	private static boolean tokensCanRepeat(List<FaultRecord> faults) {
		return faults.stream()
			.anyMatch((fault) -> (fault.event().fault() == Fault.RESTART_EMPTY
					|| fault.event().fault().keepsWhatCameBefore())
					&& minClockOffset(faults, fault.started(), Long.MAX_VALUE) < maxClockOffset(faults,
							fault.started()));
	}

	private static long clockOffset(List<FaultRecord> faults, long at) {
		return faults.stream()
			.filter((fault) -> fault.event().fault() == Fault.CLOCK_JUMP && fault.started() <= at)
			.mapToLong((fault) -> fault.event().strength())
			.sum();
	}

	private static long maxClockOffset(List<FaultRecord> faults, long until) {
		long offset = 0;
		long max = 0;
		for (FaultRecord fault : faults.stream().sorted(Comparator.comparingLong(FaultRecord::started)).toList()) {
			if (fault.event().fault() == Fault.CLOCK_JUMP && fault.started() <= until) {
				offset += fault.event().strength();
				max = Math.max(max, offset);
			}
		}
		return max;
	}

	/**
	 * Once the resource accepted a write of another holder, a holder's later write is
	 * never accepted again: A, B, A in the accepted order means two writers overlapped.
	 * The docs' one exception: after Redis lost data while its clock was behind where it
	 * had been, a token can be handed out again (one more than the last one the surviving
	 * data holds, on both sides of the loss), and a resource that accepts its highest
	 * token again cannot tell two holders of the same token apart.
	 */
	private static void writersDoNotInterleave(String key, List<FencedResource.Accepted> writes,
			List<FaultRecord> faults, List<String> violations) {
		Map<Integer, FencedResource.Accepted> lastOf = new HashMap<>();
		FencedResource.Accepted previous = null;
		for (FencedResource.Accepted write : writes) {
			FencedResource.Accepted before = lastOf.get(write.holder());
			if (before != null && previous != null && previous.holder() != write.holder()
					&& !(previous.token() == write.token() && tokensCanRepeat(faults))) {
				violations.add(String.format("%s: the fenced resource accepted %s, then %s, then %s again", key, before,
						previous, write));
			}
			lastOf.put(write.holder(), write);
			previous = write;
		}
	}

	/**
	 * From its acquisition until the last moment it knew it held the lock, a holder is
	 * alone: no other holder's such interval overlaps it.
	 */
	private static void oneHolderAtATime(String key, List<Op> holds, List<String> violations) {
		List<Op> sorted = new ArrayList<>(holds);
		sorted.sort(Comparator.comparingLong(Op::invoked));
		Op longest = null;
		for (Op hold : sorted) {
			if (longest != null && hold.invoked() < longest.completed()) {
				violations
					.add(String.format("%s: two holders both knew they held it:%n    %s%n    %s", key, longest, hold));
			}
			if (longest == null || hold.completed() > longest.completed()) {
				longest = hold;
			}
		}
	}

	private static long token(Op lock) {
		if (lock.value() instanceof Long token) {
			// a recorded run keeps the handle's token
			return token;
		}
		return ((java.util.Optional<?>) lock.value())
			.map((handle) -> ((io.github.redkit.lock.LockHandle) handle).fencingToken())
			.orElseThrow();
	}

}
