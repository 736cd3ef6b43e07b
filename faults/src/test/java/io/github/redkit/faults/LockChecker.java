package io.github.redkit.faults;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Judges a lock history: fencing tokens that go back, a fenced resource whose accepted
 * writers interleave, and two holders that both knew they held one key at once.
 */
final class LockChecker {

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
		return violations.stream().distinct().toList();
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
		return lostData && clockOffset(faults, later.completed()) < maxClockOffset(faults, earlier.completed());
	}

	private static boolean tokensCanRepeat(List<FaultRecord> faults) {
		return faults.stream()
			.anyMatch((fault) -> (fault.event().fault() == Fault.RESTART_EMPTY
					|| fault.event().fault().keepsWhatCameBefore())
					&& clockOffset(faults, fault.healed()) < maxClockOffset(faults, fault.started()));
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
