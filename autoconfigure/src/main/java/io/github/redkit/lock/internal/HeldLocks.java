package io.github.redkit.lock.internal;

import java.time.Duration;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.lock.DistributedLocks;

import org.springframework.dao.DataAccessException;

/**
 * The locks Redis holds, as an operator sees them: where their keys are stored, and their
 * forced release whoever holds them (the lock's own release script, without its token
 * check). For tools such as the {@code redkit} endpoint; applications lock through
 * {@link DistributedLocks}.
 */
public final class HeldLocks {

	private final LockScripts scripts;

	/**
	 * Creates the view of the held locks.
	 * @param runner runs the lock scripts
	 * @param keyspace the keyspace the locks are stored in
	 * @param timeout how long a forced release may take
	 */
	public HeldLocks(RedisScriptRunner runner, RedisKeyspace keyspace, Duration timeout) {
		this.scripts = new LockScripts(runner, keyspace, timeout);
	}

	/**
	 * Where every lock's stored key starts: the stored key is this prefix followed by the
	 * lock's key, escaped, as a hash tag ({@code <prefix>:lock:{<key>}}).
	 * @return the prefix
	 */
	public String prefix() {
		return this.scripts.prefix();
	}

	/**
	 * The stored key of the lock an application names.
	 * @param key the lock's key, as the application passes it
	 * @return the stored key
	 */
	public String storedKey(String key) {
		return this.scripts.redisKeys(key).get(0);
	}

	/**
	 * The fencing counter of a lock in the previous layout (a lock held by an instance
	 * not upgraded yet); a lock's record holds its own fencing token.
	 * @param storedKey the lock's stored key
	 * @return the counter's key, in the lock's hash tag
	 */
	public String fencingCounter(String storedKey) {
		return LockScripts.previousFencingCounter(storedKey);
	}

	/**
	 * Frees a lock whoever holds it (its record keeps the fencing token; a lock of the
	 * previous layout is deleted), and wakes its waiters, in one script.
	 * @param storedKey the lock's stored key
	 * @return whether the lock was held
	 * @throws DataAccessException when Redis cannot be reached in time
	 */
	public boolean forceRelease(String storedKey) {
		return this.scripts.forceRelease(LockScripts.keysOf(storedKey));
	}

}
