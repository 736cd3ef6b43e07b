package io.github.redkit.queue.internal;

import java.util.List;

import io.github.redkit.core.RedisKeyspace;

/**
 * The keys of one queue, all under one hash tag so that every script of the queue runs in
 * one cluster slot:
 * {@code <prefix>:queue:{<name>}:ready|inflight|delayed|collapse|dead|dead-errors|dead-index|next-due}.
 *
 * @param ready list of ready elements
 * @param inFlight sorted set of taken elements scored by their visibility deadline
 * @param delayed sorted set of delayed and backing-off elements scored by their due time
 * @param collapse hash from the SHA-1 of a delayed payload to its pending element
 * @param dead hash from id to dead element
 * @param deadErrors hash from id to last error
 * @param deadIndex sorted set of dead ids scored by their dead-letter time
 * @param nextDue string holding a time (ms, and expiring at it) at or before which
 * neither {@code inFlight} nor {@code delayed} holds a score, so that a take skips the
 * reaper's reads; missing or stale it only makes the next take reap (see
 * {@code queue_hint.lua})
 */
public record QueueKeys(String ready, String inFlight, String delayed, String collapse, String dead, String deadErrors,
		String deadIndex, String nextDue) {

	public static QueueKeys of(RedisKeyspace keyspace, String queue) {
		RedisKeyspace.Key base = keyspace.key("queue").tag(queue);
		return new QueueKeys(base.part("ready").build(), base.part("inflight").build(), base.part("delayed").build(),
				base.part("collapse").build(), base.part("dead").build(), base.part("dead-errors").build(),
				base.part("dead-index").build(), base.part("next-due").build());
	}

	public List<String> claimKeys() {
		return List.of(this.ready, this.inFlight, this.delayed, this.collapse, this.nextDue);
	}

	public List<String> delayKeys() {
		return List.of(this.delayed, this.collapse, this.nextDue);
	}

	public List<String> extendKeys() {
		return List.of(this.inFlight, this.nextDue);
	}

	public List<String> failKeys() {
		return List.of(this.inFlight, this.delayed, this.dead, this.deadErrors, this.deadIndex, this.nextDue);
	}

	public List<String> deadKeys() {
		return List.of(this.dead, this.deadErrors, this.deadIndex, this.ready);
	}

}
