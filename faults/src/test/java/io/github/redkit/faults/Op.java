package io.github.redkit.faults;

import org.jspecify.annotations.Nullable;

/**
 * One operation of a history: who did what to which key, when it was invoked and when it
 * completed (nanoseconds since the run started, on this machine's monotonic clock), how
 * it ended, and what it returned.
 *
 * @param process the client that did it
 * @param action what it did ({@code acquire}, {@code spend}, ...)
 * @param key the key it did it to
 * @param amount an amount, or a token, or 0
 * @param invoked when it was invoked
 * @param completed when it completed
 * @param outcome how it ended
 * @param value what it returned, or null
 */
record Op(int process, String action, String key, long amount, long invoked, long completed, Outcome outcome,
		@Nullable Object value) {

	boolean ok() {
		return this.outcome == Outcome.OK;
	}

	boolean unknown() {
		return this.outcome == Outcome.UNKNOWN;
	}

	@Override
	public String toString() {
		return String.format("p%d %s %s %d [%.1f..%.1f ms] %s%s", this.process, this.action, this.key, this.amount,
				this.invoked / 1e6, this.completed / 1e6, this.outcome, (this.value != null) ? " " + this.value : "");
	}

}
