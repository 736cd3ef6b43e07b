package io.github.redkit.queue.internal;

import java.util.ArrayList;
import java.util.List;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.queue.ExistingStream;
import io.github.redkit.queue.QueueSettings;

import org.jspecify.annotations.Nullable;

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

	/** Every key of the queue but the stream starts with it (its hash tag included). */
	private final String base;

	private QueueKeys(String base, @Nullable String stream) {
		this.base = base;
		this.ready = part("ready");
		this.inFlight = part("inflight");
		this.delayed = part("delayed");
		this.collapse = part("collapse");
		this.dead = part("dead");
		this.deadErrors = part("dead-errors");
		this.deadIndex = part("dead-index");
		this.nextDue = part("next-due");
		this.stream = (stream != null) ? stream : part("stream");
	}

	public static QueueKeys of(RedisKeyspace keyspace, String queue) {
		return new QueueKeys(keyspace.key("queue").tag(queue).build(), null);
	}

	/**
	 * The keys of a queue as its settings say: those of a queue reading a stream another
	 * application writes are that stream's key, used as it is, and Redkit's own keys
	 * (dead letters, claim cursor, records) under {@code <prefix>:queue:{<the stream's
	 * hash tag>}:existing:<name>}, so that they share its cluster slot: the tag is the
	 * part of the stream's key between its first brace and the next closing one when not
	 * empty, else the whole key.
	 * @param keyspace the keyspace
	 * @param queue the queue name
	 * @param settings the queue's settings
	 * @return the keys
	 */
	public static QueueKeys of(RedisKeyspace keyspace, String queue, QueueSettings settings) {
		ExistingStream existing = settings.existingStream();
		if (existing == null) {
			return of(keyspace, queue);
		}
		String tag = hashTag(existing.key());
		return new QueueKeys(keyspace.key("queue").build() + ":{" + tag + "}:existing:" + RedisKeyspace.escape(queue),
				existing.key());
	}

	/**
	 * What Redis hashes of a key to find its cluster slot, when a key tagged with it
	 * hashes to the same slot.
	 * @param key a key
	 * @return the part of the key that decides its slot
	 * @throws IllegalArgumentException when no tag of Redkit's keys can share its slot (a
	 * key with an empty hash tag, or without a tag but with a closing brace)
	 */
	public static String hashTag(String key) {
		int open = key.indexOf('{');
		if (open >= 0) {
			int close = key.indexOf('}', open + 1);
			if (close > open + 1) {
				return key.substring(open + 1, close);
			}
		}
		if (key.indexOf('}') >= 0) {
			throw new IllegalArgumentException("A stream key whose hash tag is empty or that holds a '}' outside"
					+ " a tag cannot share its cluster slot with Redkit's keys: " + key);
		}
		return key;
	}

	private String part(String part) {
		return this.base + ":" + RedisKeyspace.escape(part);
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
		return part("claim-cursor");
	}

	/**
	 * When each take a stream queue's retry or release gave back becomes claimable, until
	 * a take claims it, so that a claim pass that ends before then closes the claim
	 * scan's gate no longer than until it.
	 * @return the key
	 */
	public String claimDue() {
		return part("claim-due");
	}

	/**
	 * The record of one call applied, kept for the replay window only, so that the same
	 * call sent again by the client is answered, not applied again: {@code once:<id>},
	 * the id a send's first message id, a take's token or the operation id of a re-queue
	 * or of an acknowledgement, a release or a failure (and a stream queue's extension).
	 * @param id the call's id
	 * @return the key
	 */
	public String once(String id) {
		return part("once") + ":" + RedisKeyspace.escape(id);
	}

	/**
	 * Every key of the queue that Redkit owns, which a purge deletes: all of them but a
	 * stream another application writes.
	 * @return the keys
	 */
	public List<String> owned() {
		List<String> keys = new ArrayList<>(List.of(this.ready, this.inFlight, this.delayed, this.collapse, this.dead,
				this.deadErrors, this.deadIndex, this.nextDue, claimCursor(), claimDue()));
		if (this.stream.startsWith(this.base)) {
			keys.add(this.stream);
		}
		return keys;
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

	public List<String> ackKeys(String operationId) {
		return List.of(this.inFlight, once(operationId));
	}

	public List<String> releaseKeys(String operationId) {
		return List.of(this.inFlight, this.ready, once(operationId));
	}

	public List<String> failKeys(String operationId) {
		return List.of(this.inFlight, this.delayed, this.dead, this.deadErrors, this.deadIndex, this.nextDue,
				once(operationId));
	}

	public List<String> streamTakeKeys(String take) {
		return List.of(this.stream, claimCursor(), once(take), claimDue());
	}

	/**
	 * A stream queue's acknowledgement.
	 * @param operationId the call's id
	 * @return the stream and the call's record
	 */
	public List<String> streamSettleKeys(String operationId) {
		return List.of(this.stream, once(operationId));
	}

	/**
	 * A stream queue's extension or release.
	 * @param operationId the call's id
	 * @return the stream, the call's record, the claim cursor and when the takes given
	 * back are due (a release opens the claim scan)
	 */
	public List<String> streamIdleKeys(String operationId) {
		return List.of(this.stream, once(operationId), claimCursor(), claimDue());
	}

	public List<String> streamSendKeys(String firstId) {
		return List.of(this.stream, once(firstId));
	}

	/**
	 * A stream queue's failure.
	 * @param operationId the call's id
	 * @return the stream, the dead-letter keys, the call's record, the claim cursor and
	 * when the takes given back are due (a retry opens the claim scan when its backoff
	 * ends)
	 */
	public List<String> streamFailKeys(String operationId) {
		return List.of(this.stream, this.dead, this.deadErrors, this.deadIndex, once(operationId), claimCursor(),
				claimDue());
	}

	public List<String> streamDeadKeys(String operationId) {
		return List.of(this.dead, this.deadErrors, this.deadIndex, this.stream, once(operationId));
	}

	public List<String> deadKeys(String operationId) {
		return List.of(this.dead, this.deadErrors, this.deadIndex, this.ready, once(operationId));
	}

}
