package io.github.redkit.faults;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * Every operation the clients did and every fault the nemesis injected during one run,
 * timed on one monotonic clock from the run's start.
 */
final class History {

	private final long origin = System.nanoTime();

	private final List<Op> ops = new CopyOnWriteArrayList<>();

	private final List<FaultRecord> faults = new CopyOnWriteArrayList<>();

	long now() {
		return System.nanoTime() - this.origin;
	}

	/**
	 * Runs one operation and records it; an exception is an unknown outcome (a timeout or
	 * a cut connection may have applied it) unless {@code classify} says otherwise.
	 */
	<T> @Nullable T record(int process, String action, String key, long amount, Callable<T> call,
			Function<T, Outcome> outcome) {
		long invoked = now();
		try {
			T value = call.call();
			this.ops.add(new Op(process, action, key, amount, invoked, now(), outcome.apply(value), value));
			return value;
		}
		catch (Exception ex) {
			this.ops.add(new Op(process, action, key, amount, invoked, now(), Outcome.UNKNOWN, describe(ex)));
			if (ex instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
			return null;
		}
	}

	void add(Op op) {
		this.ops.add(op);
	}

	void fault(FaultRecord fault) {
		this.faults.add(fault);
	}

	/**
	 * The operations in the order they were invoked.
	 */
	List<Op> ops() {
		List<Op> sorted = new ArrayList<>(this.ops);
		sorted.sort(Comparator.comparingLong(Op::invoked));
		return sorted;
	}

	List<FaultRecord> faults() {
		return List.copyOf(this.faults);
	}

	/**
	 * The moments a fault made Redis forget (restart empty, older snapshot) or moved its
	 * clock: the history splits there into epochs, each judged on its own.
	 */
	List<FaultRecord> forgetting() {
		return this.faults.stream().filter((fault) -> fault.event().fault().forgets()).toList();
	}

	static String describe(Throwable ex) {
		Throwable root = ex;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		return ex.getClass().getSimpleName() + ((root != ex) ? "/" + root.getClass().getSimpleName() : "");
	}

}
