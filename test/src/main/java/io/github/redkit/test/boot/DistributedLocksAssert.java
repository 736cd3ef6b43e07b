package io.github.redkit.test.boot;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.lock.DistributedLocks;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on whether a lock is held, read from its Redis key
 * ({@code <prefix>:lock:{<key>}}) without touching it. A lock's name (for metrics) is not
 * part of its key: a lock is named by the key {@code tryLock} or
 * {@code @DistributedLock(key = ...)} was given.
 */
public class DistributedLocksAssert extends AbstractAssert<DistributedLocksAssert, DistributedLocks> {

	DistributedLocksAssert(DistributedLocks actual) {
		super(actual, DistributedLocksAssert.class);
	}

	/**
	 * Verifies that someone holds the lock of a key.
	 * @param key the lock's key, as given to {@code tryLock} or {@code @DistributedLock}
	 * @return this
	 */
	public DistributedLocksAssert isHeld(String key) {
		long lease = remainingLease(key);
		if (lease == -2) {
			failWithMessage("Expected lock <%s> to be held, but it is free", key);
		}
		return this;
	}

	/**
	 * Verifies that nobody holds the lock of a key.
	 * @param key the lock's key, as given to {@code tryLock} or {@code @DistributedLock}
	 * @return this
	 */
	public DistributedLocksAssert isNotHeld(String key) {
		long lease = remainingLease(key);
		if (lease != -2) {
			failWithMessage("Expected lock <%s> to be free, but it is held (lease ends in %d ms)", key, lease);
		}
		return this;
	}

	private long remainingLease(String key) {
		isNotNull();
		RedkitTestRedis redis = RedkitTestRedis.of(DistributedLocks.class, this.actual);
		String lock = new RedisKeyspace(redis.keyPrefix()).key("lock").tag(key).build();
		return RedisKeys.pttl(redis.connectionFactory(), lock);
	}

}
