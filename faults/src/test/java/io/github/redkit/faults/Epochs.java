package io.github.redkit.faults;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * Splits a history at the faults that made Redis forget or moved its clock, into the
 * views a promise that lives in Redis' memory can be judged on: the operations one Redis
 * memory holds at once. A restart empty or a clock step starts an empty memory; a restart
 * on an older snapshot, or a failover to a replica cut off, starts from what was there
 * when the snapshot was taken or the replica cut off. An operation in flight across such
 * a restart, failover or step belongs to no view.
 */
final class Epochs {

	private Epochs() {
	}

	static List<List<Op>> views(List<Op> ops, List<FaultRecord> forgetting) {
		return views(ops, forgetting, Op::invoked);
	}

	/**
	 * The views, an operation belonging to one by when it began to act on Redis (a hold
	 * by its acquisition, whose lease lives on Redis' memory and clock from then).
	 * @param ops the operations
	 * @param forgetting the faults that made Redis forget or moved its clock
	 * @param began when an operation began to act on Redis
	 * @return the views
	 */
	static List<List<Op>> views(List<Op> ops, List<FaultRecord> forgetting, ToLongFunction<Op> began) {
		List<FaultRecord> faults = new ArrayList<>(forgetting);
		faults.sort(Comparator.comparingLong(FaultRecord::started));
		List<List<Op>> views = new ArrayList<>();
		List<Op> memory = new ArrayList<>();
		long segmentStart = Long.MIN_VALUE;
		for (FaultRecord fault : faults) {
			long forgetFrom = forgetsFrom(fault);
			for (Op op : ops) {
				if (began.applyAsLong(op) > segmentStart && op.completed() < forgetFrom) {
					memory.add(op);
				}
			}
			views.add(List.copyOf(memory));
			if (fault.event().fault().keepsWhatCameBefore()) {
				memory.removeIf((op) -> op.completed() >= fault.started());
			}
			else {
				memory.clear();
			}
			segmentStart = fault.healed();
		}
		for (Op op : ops) {
			if (began.applyAsLong(op) > segmentStart) {
				memory.add(op);
			}
		}
		views.add(List.copyOf(memory));
		return views;
	}

	/**
	 * When Redis began to forget: a snapshot's restart, or a failover, comes after the
	 * time the schedule kept writing on top of what survives.
	 */
	static long forgetsFrom(FaultRecord fault) {
		if (fault.event().fault().keepsWhatCameBefore()) {
			return fault.started() + fault.event().millis() * 1_000_000;
		}
		return fault.started();
	}

}
