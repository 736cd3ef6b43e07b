package io.github.redkit.lock.internal;

import java.time.Duration;
import java.util.List;
import java.util.OptionalDouble;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.core.internal.ReplayWindow;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.dao.DataAccessException;

/**
 * The only caller of the lock scripts: a lock's keys, its tokens, and one method per
 * script. Everything else in the package depends on it, and it on nothing of the package
 * but the release's native form.
 */
final class LockScripts {

	private static final Log logger = LogFactory.getLog(LockScripts.class);

	static final LuaScript<Long> ACQUIRE = LuaScript.load("lock_acquire", Long.class);

	// on servers with SET IFEQ, one SET frees a record its holder can name to the byte
	static final LuaScript<Long> RELEASE = LuaScript.load("lock_release", Long.class)
		.withNativeForm(new ReleaseIfUnchanged())
		.givingBack();

	// no native form: the new lease end is Redis' time, which the caller cannot name
	static final LuaScript<Long> EXTEND = LuaScript.load("lock_extend", Long.class);

	/** Where the previous layout kept a lock's fencing counter, read by the endpoint. */
	private static final String PREVIOUS_FENCE = ":fence";

	/**
	 * Beside a lock's record: the plain token of the previous layout that an upgraded
	 * script first met there, for as long as that token may still hold the lock.
	 */
	private static final String PREVIOUS_SIGHTING = ":previous";

	/**
	 * Beside a lock's record: the token of the last holder whose release woke waiters,
	 * for the replay window (a woken waiter may take the lock before the client sends the
	 * release again).
	 */
	private static final String RELEASED = ":released";

	/**
	 * A lock's record outlives its lease by this much: it keeps the last fencing token.
	 */
	static final Duration FENCE_TTL = Duration.ofHours(1);

	private static final long FENCE_TTL_MILLIS = FENCE_TTL.toMillis();

	private static final String OUTLIVES = Long.toString(FENCE_TTL_MILLIS);

	/** The fencing token of a release that does not know it (the record's is kept). */
	private static final String UNKNOWN_FENCE = "0";

	/** The lease end of a release that does not know it: the script decides. */
	private static final String UNKNOWN_LEASE_END = "";

	/** An unforced release. */
	private static final String UNFORCED = "";

	private static final String PROCESS_TOKEN = UUID.randomUUID() + ":";

	private static final AtomicLong TOKENS = new AtomicLong();

	private final RedisScriptRunner runner;

	private final RedisKeyspace keyspace;

	private final Duration timeout;

	/** How long a release that woke waiters keeps its token, in ms: the replay window. */
	private final String releasedTtl;

	LockScripts(RedisScriptRunner runner, RedisKeyspace keyspace, Duration timeout) {
		this.runner = runner;
		this.keyspace = keyspace;
		this.timeout = timeout;
		this.releasedTtl = Long
			.toString(ReplayWindow.of(ReplayWindow.commandTimeout(runner.connectionFactory()), timeout, FENCE_TTL)
				.toMillis());
	}

	/**
	 * The keys of a lock, in its own hash tag: its one record (fencing token, holder,
	 * lease end, "someone waits" flag; see {@code lock_record.lua}), where the scripts
	 * remember a lock of the previous layout, written only while one is met, and the
	 * token of the last release that woke waiters (see {@code lock_release.lua}).
	 */
	List<String> redisKeys(String key) {
		return keysOf(this.keyspace.key("lock").tag(key).build());
	}

	/**
	 * The keys the lock scripts take for a lock's stored key.
	 * @param storedKey the lock's record
	 * @return the record, where a lock of the previous layout is remembered, then the
	 * last release that woke waiters
	 */
	static List<String> keysOf(String storedKey) {
		// a crashed holder of the previous layout is waited for from the first time a
		// script met its token, not from each attempt
		return List.of(storedKey, storedKey + PREVIOUS_SIGHTING, storedKey + RELEASED);
	}

	/**
	 * Where the previous layout kept the fencing counter of a lock: the endpoint still
	 * reads it for locks of instances not upgraded yet.
	 */
	static String previousFencingCounter(String lock) {
		return lock + PREVIOUS_FENCE;
	}

	/** Where every lock's stored key starts, before its hash tag. */
	String prefix() {
		return this.keyspace.key("lock").build() + ":";
	}

	static String newToken() {
		// unique across processes (the random prefix) and acquisitions (the counter);
		// printable: the lock's record ends the token with a zero byte, and tells a plain
		// token of the previous layout by its first byte
		return PROCESS_TOKEN + Long.toHexString(TOKENS.incrementAndGet()) + ':'
				+ Long.toHexString(ThreadLocalRandom.current().nextLong());
	}

	/**
	 * One attempt.
	 * @return the fencing token when acquired, else minus the holder's remaining lease
	 */
	long acquire(List<String> keys, String token, Duration lease, long waitMillis) {
		return acquire(keys, token, lease, waitMillis, false);
	}

	/**
	 * One attempt.
	 * @param othersWait whether other threads of this process still wait for the lock
	 * after this one: then an acquired lock keeps the flag that makes its release publish
	 * @return the fencing token when acquired, else minus the holder's remaining lease
	 */
	long acquire(List<String> keys, String token, Duration lease, long waitMillis, boolean othersWait) {
		return this.runner.execute(ACQUIRE, this.timeout, keys, acquireArguments(token, lease, waitMillis, othersWait));
	}

	/**
	 * One attempt, without blocking the calling thread.
	 * @param othersWait as for {@link #acquire(List, String, Duration, long, boolean)}
	 * @return the fencing token when acquired, else minus the holder's remaining lease
	 */
	CompletableFuture<Long> acquireAsync(List<String> keys, String token, Duration lease, long waitMillis,
			boolean othersWait) {
		return this.runner.executeAsync(ACQUIRE, this.timeout, keys,
				acquireArguments(token, lease, waitMillis, othersWait));
	}

	private static String[] acquireArguments(String token, Duration lease, long waitMillis, boolean othersWait) {
		// the record's whole TTL (the lease, then FENCE_TTL more), computed here: the
		// script
		// hands it to PX as it comes, without formatting a number
		long leaseMillis = lease.toMillis();
		return new String[] { token, Long.toString(leaseMillis), Long.toString(leaseMillis + FENCE_TTL_MILLIS),
				Long.toString(waitMillis), othersWait ? "1" : "0" };
	}

	/**
	 * The lease end a record holds after an acquisition or extension at {@code now} for
	 * {@code leaseMillis}: computed as the scripts compute it, to the bit.
	 * @param now Redis time in µs (an acquisition's fresh fencing token is that time)
	 * @param leaseMillis the lease, as sent to the script
	 * @return Redis time in µs, as the record's double holds it
	 */
	static double leaseEnd(long now, long leaseMillis) {
		return now + leaseMillis * 1000.0;
	}

	/**
	 * Extends the lease if the token still holds the lock.
	 * @return the record's new lease end ({@link #leaseEnd}), empty when the token no
	 * longer held the lock
	 */
	OptionalDouble extend(List<String> keys, String token, long fence, Duration lease) {
		return extended(this.runner.execute(EXTEND, this.timeout, keys, extendArguments(token, fence, lease)), lease);
	}

	CompletableFuture<OptionalDouble> extendAsync(List<String> keys, String token, long fence, Duration lease) {
		return this.runner.executeAsync(EXTEND, this.timeout, keys, extendArguments(token, fence, lease))
			.thenApply((now) -> extended(now, lease));
	}

	private static OptionalDouble extended(long now, Duration lease) {
		return (now > 0) ? OptionalDouble.of(leaseEnd(now, extendedLeaseMillis(lease))) : OptionalDouble.empty();
	}

	private static long extendedLeaseMillis(Duration lease) {
		return Math.max(1, lease.toMillis());
	}

	private static String[] extendArguments(String token, long fence, Duration lease) {
		// the fencing token is written back with the new lease end (the record is written
		// before it is read): the holder's own
		return new String[] { token, Long.toString(extendedLeaseMillis(lease)), Long.toString(fence), OUTLIVES };
	}

	/**
	 * Sets the lock to end {@code keepFor} from now if the token still holds it: a
	 * release that keeps the lock taken until then (the extend script: a token-checked
	 * new lease end).
	 * @return {@code true} when it did
	 * @throws DataAccessException when Redis cannot be reached in time
	 */
	boolean keep(List<String> keys, String token, long fence, Duration keepFor) {
		return RedisScriptRunner.uninterrupted(() -> extend(keys, token, fence, keepFor).isPresent());
	}

	/**
	 * Releases a lock if the token still holds it.
	 * @param leaseEnd the lease end its record holds as far as the holder knows
	 * ({@link #leaseEnd}), {@code NaN} when it does not: where it still does, a server
	 * with {@code SET IFEQ} frees it with that one command
	 * @return {@code true} when it did
	 * @throws DataAccessException when Redis cannot be reached in time
	 */
	boolean release(List<String> keys, String token, long fence, double leaseEnd) {
		return RedisScriptRunner.uninterrupted(
				() -> this.runner.execute(RELEASE, this.timeout, keys, releaseArguments(token, fence, leaseEnd)) == 1);
	}

	/**
	 * Releases a lock if the token still holds it, without blocking the calling thread.
	 * @param leaseEnd as for {@link #release(List, String, long, double)}
	 * @return {@code true} when it did; a {@link DataAccessException} when Redis cannot
	 * be reached in time
	 */
	CompletableFuture<Boolean> releaseAsync(List<String> keys, String token, long fence, double leaseEnd) {
		return this.runner.executeAsync(RELEASE, this.timeout, keys, releaseArguments(token, fence, leaseEnd))
			.thenApply((released) -> released == 1);
	}

	private String[] releaseArguments(String token, long fence, double leaseEnd) {
		return new String[] { token, Long.toString(fence), OUTLIVES, UNFORCED,
				Double.isNaN(leaseEnd) ? UNKNOWN_LEASE_END : Double.toString(leaseEnd), this.releasedTtl };
	}

	/**
	 * Releases a lock whoever holds it, and wakes its waiters (an operator's forced
	 * release): the release script without its token check.
	 * @return {@code true} when the lock was held
	 * @throws DataAccessException when Redis cannot be reached in time
	 */
	boolean forceRelease(List<String> keys) {
		return this.runner.execute(RELEASE, this.timeout, keys, "", UNKNOWN_FENCE, OUTLIVES, "force") == 1;
	}

	/**
	 * Sends a release without waiting: after a timed-out acquire, the release is queued
	 * behind it on the same connection, so a lock taken late is given back at once.
	 */
	void releaseLater(List<String> keys, String token) {
		// the fencing token never came back: the script keeps the record's
		this.runner.executeAsync(RELEASE, keys, token, UNKNOWN_FENCE, OUTLIVES)
			.whenComplete((released, ex) -> logger.debug("Released a late lock '" + keys.get(0) + "': " + released));
	}

}
