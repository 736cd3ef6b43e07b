package io.github.redkit.faults;

/**
 * One fault of a schedule: what, when (milliseconds after the clients started), for how
 * long, against which Redis or which link (taken modulo the rig's nodes and links), and
 * how strong (a delay, a clock step).
 *
 * @param at when it starts
 * @param fault what it is
 * @param millis how long it lasts (0 for an instant fault)
 * @param target the node, or the link, it hits
 * @param strength a delay or clock step in milliseconds, where the fault has one
 */
record FaultEvent(long at, Fault fault, long millis, int target, long strength) {

	@Override
	public String toString() {
		return String.format("@%dms %s%s%s%s", this.at, this.fault,
				(this.millis > 0) ? " for " + this.millis + "ms" : "",
				(this.fault.onLink() ? " link " : " node ") + this.target,
				(this.strength != 0) ? " by " + this.strength + "ms" : "");
	}

}
