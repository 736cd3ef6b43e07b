package io.github.redkit.faults;

import org.jspecify.annotations.Nullable;

/**
 * A fault as the nemesis injected it: when it started and when it was healed (nanoseconds
 * since the run started), and, for a restart empty, what the scenario's state in Redis
 * was the moment before (so that a checker can tell what the restart lost from what was
 * never there).
 *
 * @param event the scheduled event
 * @param started when the fault began
 * @param healed when it ended (the same moment for an instant fault)
 * @param held what the scenario read from Redis just before the fault made it forget (see
 * {@link Scenario#beforeRestartEmpty}), or {@code null} when nothing was read
 */
record FaultRecord(FaultEvent event, long started, long healed, @Nullable Object held) {

	FaultRecord(FaultEvent event, long started, long healed) {
		this(event, started, healed, null);
	}

	boolean overlaps(long from, long to) {
		return this.started <= to && from <= this.healed;
	}

	/**
	 * Whether this is a step of Redis' clock back: deadlines and leases set before it end
	 * later, none earlier, so it makes nothing that held stop holding.
	 */
	boolean stepsClockBack() {
		return this.event.fault() == Fault.CLOCK_JUMP && this.event.strength() < 0;
	}

	@Override
	public String toString() {
		return String.format("%s [%.1f..%.1f ms]", this.event, this.started / 1e6, this.healed / 1e6);
	}

}
