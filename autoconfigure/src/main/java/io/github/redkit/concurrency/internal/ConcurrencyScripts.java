package io.github.redkit.concurrency.internal;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.concurrency.ConcurrencyPolicy;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The only caller of the concurrency scripts: the key of a (limit, key) pair, the ids of
 * permits, and one method per script. One sorted set per pair, hash-tagged on the key:
 * {@code <prefix>:concurrency:<limit>:{<key>}}, members the permit ids, scores the ends
 * of their leases in Redis milliseconds.
 */
final class ConcurrencyScripts {

	private static final Log logger = LogFactory.getLog(ConcurrencyScripts.class);

	static final LuaScript<List> ACQUIRE = LuaScript.load("concurrency_acquire", List.class);

	static final LuaScript<Long> RELEASE = LuaScript.load("concurrency_release", Long.class).givingBack();

	static final LuaScript<Long> RENEW = LuaScript.load("concurrency_renew", Long.class);

	private static final String PROCESS_ID = UUID.randomUUID() + ":";

	private static final AtomicLong PERMITS = new AtomicLong();

	private final RedisScriptRunner runner;

	private final RedisKeyspace keyspace;

	private final Duration timeout;

	ConcurrencyScripts(RedisScriptRunner runner, RedisKeyspace keyspace, Duration timeout) {
		this.runner = runner;
		this.keyspace = keyspace;
		this.timeout = timeout;
	}

	String redisKey(String limitId, String key) {
		return this.keyspace.key("concurrency").part(limitId).tag(key).build();
	}

	static String newPermitId() {
		// unique across processes (the random prefix) and permits (the counter)
		return PROCESS_ID + Long.toHexString(PERMITS.incrementAndGet()) + ':'
				+ Long.toHexString(ThreadLocalRandom.current().nextLong());
	}

	/**
	 * Takes a permit.
	 * @return {taken (1 or 0), in flight, ms until the earliest lease ends}
	 */
	long[] acquire(String redisKey, String permitId, ConcurrencyPolicy policy) {
		return RedisScriptRunner.await(acquireAsync(redisKey, permitId, policy), this.timeout, ACQUIRE.name());
	}

	/**
	 * Sends the acquisition; the caller bounds the wait.
	 */
	CompletableFuture<long[]> acquireAsync(String redisKey, String permitId, ConcurrencyPolicy policy) {
		return this.runner
			.executeAsync(ACQUIRE, this.timeout, List.of(redisKey), permitId, Integer.toString(policy.limit()),
					Long.toString(policy.lease().toMillis()))
			.thenApply((reply) -> new long[] { (Long) reply.get(0), (Long) reply.get(1), (Long) reply.get(2) });
	}

	Duration timeout() {
		return this.timeout;
	}

	boolean release(String redisKey, String permitId) {
		return RedisScriptRunner
			.uninterrupted(() -> this.runner.execute(RELEASE, this.timeout, List.of(redisKey), permitId) == 1);
	}

	/**
	 * Sends a release without waiting: after a timed-out acquire it is queued behind it,
	 * so a permit taken late is given back at once.
	 */
	CompletableFuture<Boolean> releaseAsync(String redisKey, String permitId) {
		return RedisScriptRunner.within(this.runner.executeAsync(RELEASE, List.of(redisKey), permitId), this.timeout)
			.thenApply((released) -> released == 1);
	}

	void releaseLater(String redisKey, String permitId) {
		this.runner.executeAsync(RELEASE, List.of(redisKey), permitId)
			.whenComplete((released, ex) -> logger.debug("Released a late permit on '" + redisKey + "': " + released));
	}

	CompletableFuture<Boolean> renewAsync(String redisKey, String permitId, Duration lease) {
		// bounded by the runner, whose timeout completes on its own threads, not on the
		// JDK's one timer thread
		return this.runner
			.executeAsync(RENEW, this.timeout, List.of(redisKey), permitId, Long.toString(lease.toMillis()))
			.thenApply((renewed) -> renewed == 1);
	}

}
