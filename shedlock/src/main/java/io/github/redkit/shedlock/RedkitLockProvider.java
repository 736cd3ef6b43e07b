package io.github.redkit.shedlock;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockContext;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

import org.springframework.util.Assert;

/**
 * A ShedLock {@link ExtensibleLockProvider} on Redkit's {@link DistributedLocks}: a
 * {@code @SchedulerLock} named {@code n} takes the Redkit lock on key {@code n} (the key
 * a {@code @DistributedLock} on {@code 'n'} takes too), with {@code lockAtMostFor} as its
 * lease, never waiting. Each acquisition has a fencing token, reachable through
 * {@link DistributedLocks#current()} while the task runs on the locking thread, and is
 * counted in Redkit's lock meters under one low-cardinality name ({@value #DEFAULT_NAME}
 * by default). {@code lockAtLeastFor} keeps the lock after the task through
 * {@link io.github.redkit.lock.LockHandle#release(Duration)}, which is not a lost lease.
 */
public class RedkitLockProvider implements ExtensibleLockProvider {

	/** The lock name in metrics unless another is given. */
	public static final String DEFAULT_NAME = "shedlock";

	private final DistributedLocks locks;

	private final String name;

	/**
	 * Creates a provider whose locks are named {@value #DEFAULT_NAME} in metrics.
	 * @param locks the locks
	 */
	public RedkitLockProvider(DistributedLocks locks) {
		this(locks, DEFAULT_NAME);
	}

	/**
	 * Creates a provider.
	 * @param locks the locks
	 * @param name the lock name in metrics (one for all ShedLock tasks, never a task's
	 * lock name, so that the meters keep a low cardinality)
	 */
	public RedkitLockProvider(DistributedLocks locks, String name) {
		Assert.notNull(locks, "Locks must not be null");
		Assert.hasText(name, "Name must not be empty");
		this.locks = locks;
		this.name = name;
	}

	@Override
	public Optional<SimpleLock> lock(LockConfiguration configuration) {
		// counted from the configuration's creation, as ShedLock's own providers do
		Duration lease = leaseUntil(configuration.getLockAtMostUntil());
		return this.locks.tryLock(this.name, configuration.getName(), Duration.ZERO, lease)
			.map((handle) -> new RedkitSimpleLock(configuration, handle, LockContext.bind(handle)));
	}

	/**
	 * The time left until an instant on ShedLock's clock, at least a millisecond (the
	 * shortest lease Redis keeps).
	 * @param until the instant
	 * @return the lease
	 */
	static Duration leaseUntil(Instant until) {
		Duration left = timeUntil(until);
		return (left.toMillis() < 1) ? Duration.ofMillis(1) : left;
	}

	static Duration timeUntil(Instant until) {
		return Duration.between(ClockProvider.now(), until);
	}

	@Override
	public String toString() {
		return "RedkitLockProvider '" + this.name + "'";
	}

}
