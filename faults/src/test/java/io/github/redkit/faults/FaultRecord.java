package io.github.redkit.faults;

/**
 * A fault as the nemesis injected it: when it started and when it was healed (nanoseconds
 * since the run started).
 *
 * @param event the scheduled event
 * @param started when the fault began
 * @param healed when it ended (the same moment for an instant fault)
 */
record FaultRecord(FaultEvent event, long started, long healed) {

	boolean overlaps(long from, long to) {
		return this.started <= to && from <= this.healed;
	}

	@Override
	public String toString() {
		return String.format("%s [%.1f..%.1f ms]", this.event, this.started / 1e6, this.healed / 1e6);
	}

}
