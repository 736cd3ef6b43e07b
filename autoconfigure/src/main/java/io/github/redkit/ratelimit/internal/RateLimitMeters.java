package io.github.redkit.ratelimit.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redkit.core.RedkitMeter;
import io.github.redkit.core.RedkitMetrics;

/**
 * The meters of rate limits, recorded through
 * {@link io.github.redkit.core.RedkitMetrics}. Tags: {@code limit} (the limit's name,
 * never a key) and {@code outcome}.
 */
public final class RateLimitMeters {

	/**
	 * Decisions; tag {@code outcome}: allowed, denied, failed-open, failed-closed,
	 * local-allowed, local-denied or replay-dropped.
	 */
	public static final RedkitMeter DECISIONS = RedkitMeter.counter("redkit.ratelimit.decisions",
			"Rate-limit decisions");

	/** Time to decide. */
	static final RedkitMeter DURATION = RedkitMeter.timer("redkit.ratelimit.duration",
			"Time to decide a rate-limited call");

	/**
	 * Give-backs of permits: those cluster slots took for a call another slot refused,
	 * and the unused part of a settled reservation; tag {@code outcome}: given-back or
	 * failed (the permits may still be taken).
	 */
	static final RedkitMeter REFUNDS = RedkitMeter.counter("redkit.ratelimit.refunds",
			"Give-backs of permits that cluster slots took for a call another slot refused");

	/**
	 * Settlements of reservations; tag {@code outcome}: given-back (the call used less
	 * than it took), charged (more), unchanged, failed (the estimate is what counts),
	 * replay-dropped (a charge whose re-send after a reconnect was dropped: applied once
	 * or not at all), or not-counted (let through by the failure mode, nothing was
	 * counted).
	 */
	static final RedkitMeter SETTLEMENTS = RedkitMeter.counter("redkit.ratelimit.settlements",
			"Settlements of rate-limit reservations with what the call really used");

	/**
	 * Batches of permits taken from Redis for a limit's local allowance.
	 */
	static final RedkitMeter ALLOWANCE_BATCHES = RedkitMeter.counter("redkit.ratelimit.allowance.batches",
			"Batches of permits taken from Redis for a rate limit's local allowance");

	/**
	 * Permits of local allowances; tag {@code event}: taken (in batches), handed-out (to
	 * calls), given-back (unused when their batch expired).
	 */
	static final RedkitMeter ALLOWANCE_PERMITS = RedkitMeter.counter("redkit.ratelimit.allowance.permits",
			"Permits of rate limits' local allowances: taken from Redis, handed out, given back");

	static final String TAKEN = "taken";

	static final String HANDED_OUT = "handed-out";

	static final String GIVEN_BACK = "given-back";

	static final String CHARGED = "charged";

	static final String UNCHANGED = "unchanged";

	static final String FAILED = "failed";

	static final String NOT_COUNTED = "not-counted";

	/** An outcome of {@link #DECISIONS}. */
	public static final String ALLOWED = "allowed";

	/** An outcome of {@link #DECISIONS}. */
	public static final String DENIED = "denied";

	/** An outcome of {@link #DECISIONS}. */
	public static final String FAILED_OPEN = "failed-open";

	/** An outcome of {@link #DECISIONS}. */
	public static final String FAILED_CLOSED = "failed-closed";

	/**
	 * An outcome of {@link #DECISIONS}: allowed by this instance while Redis was away.
	 */
	public static final String LOCAL_ALLOWED = "local-allowed";

	/**
	 * An outcome of {@link #DECISIONS}: refused by this instance while Redis was away.
	 */
	public static final String LOCAL_DENIED = "local-denied";

	/**
	 * An outcome of {@link #DECISIONS} and {@link #SETTLEMENTS}: the call's connection
	 * dropped after it was written and Redkit did not send it again, so Redis applied it
	 * once or not at all; the failure mode decided this call only (no cooldown: Redis
	 * answered in its place).
	 */
	public static final String REPLAY_DROPPED = "replay-dropped";

	// the tags of each limit's decisions by outcome, and of its durations under this key:
	// as many as the meters a registry keeps of them
	private static final Map<String, Map<String, String[]>> TAGS = new ConcurrentHashMap<>();

	private static final String DURATION_TAGS = "";

	private RateLimitMeters() {
	}

	/**
	 * Counts a decision and records how long it took.
	 * @param metrics where
	 * @param limitName the limit
	 * @param outcome the outcome, e.g. {@link #ALLOWED}
	 * @param start when the decision started, as {@link System#nanoTime()}
	 */
	static void decided(RedkitMetrics metrics, String limitName, String outcome, long start) {
		decided(metrics, limitName, outcome, start, System.nanoTime());
	}

	/**
	 * Records a decision, with the tags of its limit and outcome made once: a decision
	 * allocates no tag array.
	 * @param metrics where it is recorded
	 * @param limitName the limit
	 * @param outcome its outcome, one of this class's
	 * @param start when it started
	 * @param end when it ended, on the clock of {@code start}
	 */
	static void decided(RedkitMetrics metrics, String limitName, String outcome, long start, long end) {
		Map<String, String[]> tags = TAGS.get(limitName);
		if (tags == null) {
			tags = TAGS.computeIfAbsent(limitName, (name) -> new ConcurrentHashMap<>());
		}
		String[] decision = tags.get(outcome);
		if (decision == null) {
			decision = tags.computeIfAbsent(outcome, (key) -> new String[] { "limit", limitName, "outcome", key });
		}
		String[] duration = tags.get(DURATION_TAGS);
		if (duration == null) {
			duration = tags.computeIfAbsent(DURATION_TAGS, (key) -> new String[] { "limit", limitName });
		}
		metrics.increment(DECISIONS, decision);
		metrics.record(DURATION, end - start, duration);
	}

}
