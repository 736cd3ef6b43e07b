package io.github.redkit.test.boot;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.testsupport.LockRecords;
import org.assertj.core.api.AbstractAssert;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Assertions on whether a lock is held, read from its Redis record
 * ({@code <prefix>:lock:{<key>}}: a holder and a lease end on Redis' clock) without
 * touching it. A lock's name (for metrics) is not part of its key: a lock is named by the
 * key {@code tryLock} or {@code @DistributedLock(key = ...)} was given.
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
		isNotNull();
		if (!LockRecords.held(redis(), lockKey(key))) {
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
		isNotNull();
		StringRedisTemplate redis = redis();
		String lock = lockKey(key);
		if (LockRecords.held(redis, lock)) {
			failWithMessage("Expected lock <%s> to be free, but it is held (lease ends in %d ms)", key,
					LockRecords.remainingLeaseMillis(redis, lock));
		}
		return this;
	}

	// a released lock's record stays (it keeps the last fencing token): whether it is
	// held is in the record, not in whether the key exists
	private StringRedisTemplate redis() {
		StringRedisTemplate template = new StringRedisTemplate(testRedis().connectionFactory());
		template.afterPropertiesSet();
		return template;
	}

	private String lockKey(String key) {
		return new RedisKeyspace(testRedis().keyPrefix()).key("lock").tag(key).build();
	}

	private RedkitTestRedis testRedis() {
		return RedkitTestRedis.of(DistributedLocks.class, this.actual);
	}

}
