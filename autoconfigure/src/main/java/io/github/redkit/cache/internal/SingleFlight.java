package io.github.redkit.cache.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.DeleteIfEqual;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RandomIds;
import io.github.redkit.core.internal.RedisScriptRunner;

/**
 * The cluster-wide lock of one cache entry: {@code SET NX PX} with a random owner token,
 * released by compare-and-delete so that a holder whose lease expired never removes the
 * next holder's lock. Lock keys are {@code <prefix>:cache:{<entry key>}:flight}.
 */
public final class SingleFlight {

	private static final LuaScript<Long> LOCK = LuaScript.load("cache_lock", Long.class);

	// DELIFEQ where the server has it (Valkey 9); a give-back: an unlock whose caller
	// stopped waiting (interrupted, in the finally of a load) is still sent once a
	// connection frees, or the other loaders would wait for the lock's lease
	private static final LuaScript<Long> UNLOCK = DeleteIfEqual.script("cache_unlock").givingBack();

	private final RedisScriptRunner runner;

	private final RedisKeyspace keyspace;

	/**
	 * Creates the lock helper.
	 * @param runner the script runner
	 * @param keyspace the keyspace
	 */
	public SingleFlight(RedisScriptRunner runner, RedisKeyspace keyspace) {
		this.runner = runner;
		this.keyspace = keyspace;
	}

	/**
	 * The lock key of a cache entry.
	 * @param entryKey the entry's Redis key
	 * @return the lock key
	 */
	public String lockKey(byte[] entryKey) {
		return this.keyspace.key("cache").tag(new String(entryKey, StandardCharsets.UTF_8)).part("flight").build();
	}

	/**
	 * A fresh owner token.
	 * @return a random token
	 */
	public static String newToken() {
		return RandomIds.next();
	}

	/**
	 * Tries to take the lock once.
	 * @param lockKey the lock key
	 * @param token the caller's token
	 * @param lease how long the lock lives if never released
	 * @return {@code true} when the caller now holds it
	 */
	public boolean tryLock(String lockKey, String token, Duration lease) {
		Long acquired = this.runner.execute(LOCK, List.of(lockKey), token,
				Long.toString(Math.max(1, lease.toMillis())));
		return acquired != null && acquired == 1L;
	}

	/**
	 * Releases the lock if the caller still holds it, waiting for Redis at most the
	 * lock's lease (past it the lock is gone anyway).
	 * @param lockKey the lock key
	 * @param token the caller's token
	 * @param lease the lease the lock was taken with
	 */
	public void unlock(String lockKey, String token, Duration lease) {
		// on the runner's connection, which sends a script's native form (the template
		// does not)
		this.runner.execute(UNLOCK, lease, List.of(lockKey), token);
	}

}
