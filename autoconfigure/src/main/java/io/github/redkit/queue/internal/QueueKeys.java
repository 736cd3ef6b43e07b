package io.github.redkit.queue.internal;

import java.util.List;

import io.github.redkit.core.RedisKeyspace;

/**
 * The keys of one queue, all under one hash tag so that every script of the queue runs in
 * one cluster slot:
 * {@code <prefix>:queue:{<name>}:ready|inflight|delayed|collapse|dead|dead-errors|dead-index|next-due}
 * (or {@code stream} instead of the first four and the hint for a stream queue), and
 * {@code once:<id>}, the short-lived records of calls applied once.
 */
public final class QueueKeys {

	private final String ready;

	private final String inFlight;

	private final String delayed;

	private final String collapse;

	private final String dead;

	private final String deadErrors;

	private final String deadIndex;

	private final String nextDue;

	private final String stream;

	private final RedisKeyspace.Key base;

	private QueueKeys(RedisKeyspace.Key base) {
		this.base = base;
		this.ready = base.part("ready").build();
		this.inFlight = base.part("inflight").build();
		this.delayed = base.part("delayed").build();
		this.collapse = base.part("collapse").build();
		this.dead = base.part("dead").build();
		this.deadErrors = base.part("dead-errors").build();
		this.deadIndex = base.part("dead-index").build();
		this.nextDue = base.part("next-due").build();
		this.stream = base.part("stream").build();
	}

	public static QueueKeys of(RedisKeyspace keyspace, String queue) {
		return new QueueKeys(keyspace.key("queue").tag(queue));
	}

	/**
	 * The list of ready elements.
	 * @return the key
	 */
	public String ready() {
		return this.ready;
	}

	/**
	 * The sorted set of taken elements scored by their visibility deadline.
	 * @return the key
	 */
	public String inFlight() {
		return this.inFlight;
	}

	/**
	 * The sorted set of delayed and backing-off elements scored by their due time.
	 * @return the key
	 */
	public String delayed() {
		return this.delayed;
	}

	/**
	 * The hash from the SHA-1 of a delayed payload to its pending element.
	 * @return the key
	 */
	public String collapse() {
		return this.collapse;
	}

	/**
	 * The hash from id to dead element.
	 * @return the key
	 */
	public String dead() {
		return this.dead;
	}

	/**
	 * The hash from id to last error.
	 * @return the key
	 */
	public String deadErrors() {
		return this.deadErrors;
	}

	/**
	 * The sorted set of dead ids scored by their dead-letter time.
	 * @return the key
	 */
	public String deadIndex() {
		return this.deadIndex;
	}

	/**
	 * The string holding a time (ms, and expiring at it) at or before which neither
	 * {@link #inFlight()} nor {@link #delayed()} holds a score, so that a take skips the
	 * reaper's reads; missing or stale it only makes the next take reap (see
	 * {@code queue_hint.lua}).
	 * @return the key
	 */
	public String nextDue() {
		return this.nextDue;
	}

	/**
	 * The stream of a queue kept in the stream store: one entry per ready or in-flight
	 * message (field {@code e}, the element), read by one consumer group.
	 * @return the key
	 */
	public String stream() {
		return this.stream;
	}

	/**
	 * Where a stream queue's last claim of expired takes stopped scanning its pending
	 * entries, so that the next take goes on from there.
	 * @return the key
	 */
	public String claimCursor() {
		return this.base.part("claim-cursor").build();
	}

	/**
	 * The record of one call applied, kept for the replay window only, so that the same
	 * call sent again by the client is answered, not applied again: {@code once:<id>},
	 * the id a send's first message id, a take's token or the operation id of a re-queue
	 * or of a stream queue's acknowledgement, extension, release or failure.
	 * @param id the call's id
	 * @return the key
	 */
	public String once(String id) {
		return this.base.part("once").part(id).build();
	}

	public List<String> claimKeys(String take) {
		return List.of(this.ready, this.inFlight, this.delayed, this.collapse, this.nextDue, once(take));
	}

	public List<String> sendKeys(String firstId) {
		return List.of(this.ready, once(firstId));
	}

	public List<String> delayKeys(String id) {
		return List.of(this.delayed, this.collapse, this.nextDue, once(id));
	}

	public List<String> extendKeys() {
		return List.of(this.inFlight, this.nextDue);
	}

	public List<String> failKeys() {
		return List.of(this.inFlight, this.delayed, this.dead, this.deadErrors, this.deadIndex, this.nextDue);
	}

	public List<String> streamTakeKeys(String take) {
		return List.of(this.stream, claimCursor(), once(take));
	}

	/**
	 * A stream queue's acknowledgement, extension or release.
	 * @param operationId the call's id
	 * @return the stream and the call's record
	 */
	public List<String> streamSettleKeys(String operationId) {
		return List.of(this.stream, once(operationId));
	}

	public List<String> streamSendKeys(String firstId) {
		return List.of(this.stream, once(firstId));
	}

	public List<String> streamFailKeys(String operationId) {
		return List.of(this.stream, this.dead, this.deadErrors, this.deadIndex, once(operationId));
	}

	public List<String> streamDeadKeys(String operationId) {
		return List.of(this.dead, this.deadErrors, this.deadIndex, this.stream, once(operationId));
	}

	public List<String> deadKeys(String operationId) {
		return List.of(this.dead, this.deadErrors, this.deadIndex, this.ready, once(operationId));
	}

}
