package io.github.redkit.lock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.github.redkit.core.LuaScript;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedisScriptRunner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.dao.DataAccessException;
import org.springframework.util.Assert;

/**
 * {@link DistributedLocks} on Redis. Keys: {@code <prefix>:lock:{<key>}} holds the
 * holder's random token with the lease as TTL, {@code ...:fence} the fencing counter and
 * {@code ...:waiters} a flag that tells the release to publish; one hash tag, one slot.
 */
public class RedisDistributedLocks implements DistributedLocks, DisposableBean {

	private static final Log logger = LogFactory.getLog(RedisDistributedLocks.class);

	static final LuaScript<Long> ACQUIRE = LuaScript.load("lock_acquire", Long.class);

	static final LuaScript<Long> RELEASE = LuaScript.load("lock_release", Long.class);

	static final LuaScript<Long> EXTEND = LuaScript.load("lock_extend", Long.class);

	/** The fencing counter outlives the lock by at least this much. */
	static final Duration FENCE_TTL = Duration.ofHours(1);

	private static final String PROCESS_TOKEN = UUID.randomUUID() + ":";

	private static final AtomicLong TOKENS = new AtomicLong();

	private final RedisScriptRunner runner;

	private final RedisKeyspace keyspace;

	private final LockSettings settings;

	private final LockMetrics metrics;

	private final List<LockListener> listeners;

	private final LockWatchdog watchdog = new LockWatchdog();

	private final LockWaiters waiters;

	/**
	 * Creates the locks.
	 * @param runner runs the scripts
	 * @param keyspace builds the keys
	 * @param settings default lease, Redis timeout, retry fallback
	 * @param metrics where to report, {@link LockMetrics#NONE} for nowhere
	 * @param listeners called when a held lock is lost
	 */
	public RedisDistributedLocks(RedisScriptRunner runner, RedisKeyspace keyspace, LockSettings settings,
			LockMetrics metrics, List<LockListener> listeners) {
		this.runner = runner;
		this.keyspace = keyspace;
		this.settings = settings;
		this.metrics = metrics;
		this.listeners = List.copyOf(listeners);
		this.waiters = new LockWaiters(runner.connectionFactory());
	}

	@Override
	public Optional<LockHandle> tryLock(String name, String key, Duration wait, Duration lease) {
		Assert.hasText(name, "Lock name must not be empty");
		Assert.notNull(wait, "Wait must not be null (use Duration.ZERO to try once)");
		Assert.isTrue(!wait.isNegative(), "Wait must not be negative");
		Assert.isTrue(lease == null || lease.toMillis() > 0, "Lease must be at least 1 ms");
		return new LockAcquisition(this, name, key, wait, (lease != null) ? lease : this.settings.leaseTime(),
				lease == null)
			.acquire();
	}

	@Override
	public <T> T withLock(String key, Duration wait, Duration lease, Supplier<T> action) {
		try {
			return LockedExecution.run(this, UNNAMED, key, wait, lease, action::get);
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

	List<String> redisKeys(String key) {
		RedisKeyspace.Key lock = this.keyspace.key("lock").tag(key);
		return List.of(lock.build(), lock.part("fence").build(), lock.part("waiters").build());
	}

	long acquireScript(List<String> keys, String token, Duration lease, long waitMillis) {
		long fenceTtl = Math.max(FENCE_TTL.toMillis(), 2 * lease.toMillis());
		return this.runner.execute(ACQUIRE, this.settings.redisTimeout(), keys, token, Long.toString(lease.toMillis()),
				Long.toString(fenceTtl), Long.toString(waitMillis));
	}

	RedisLockHandle acquired(String name, String key, List<String> keys, String token, long fence, long sentNanos,
			Duration lease, boolean renewed) {
		RedisLockHandle handle = new RedisLockHandle(this, name, key, keys, token, fence, sentNanos, lease, renewed);
		this.watchdog.watch(handle, lease, this);
		return handle;
	}

	boolean extend(RedisLockHandle handle, Duration lease) {
		try {
			return this.runner.execute(EXTEND, this.settings.redisTimeout(), handle.redisKeys().subList(0, 1),
					handle.token(), Long.toString(Math.max(1, lease.toMillis()))) == 1;
		}
		catch (DataAccessException ex) {
			throw new LockUnavailableException("Could not extend lock '" + handle.key() + "': " + ex.getMessage(), ex);
		}
	}

	CompletableFuture<Boolean> extendAsync(RedisLockHandle handle, Duration lease) {
		return this.runner
			.executeAsync(EXTEND, handle.redisKeys().subList(0, 1), handle.token(), Long.toString(lease.toMillis()))
			.orTimeout(this.settings.redisTimeout().toMillis(), TimeUnit.MILLISECONDS)
			.thenApply((extended) -> extended == 1);
	}

	boolean release(RedisLockHandle handle, boolean wasHeld) {
		this.metrics.held(handle.name(), Duration.ofNanos(System.nanoTime() - handle.acquiredNanos()));
		long released;
		try {
			released = this.runner.execute(RELEASE, this.settings.redisTimeout(),
					List.of(handle.redisKeys().get(0), handle.redisKeys().get(2)), handle.token());
		}
		catch (DataAccessException ex) {
			// the lease ends the lock anyway; throwing here would hide the caller's
			// outcome
			logger.warn("Could not release lock '" + handle.key() + "'; it ends with its lease: " + ex.getMessage());
			return false;
		}
		if (released == 0 && wasHeld) {
			lost(handle);
		}
		return released == 1;
	}

	/**
	 * Sends a release without waiting: after a timed-out acquire, the release is queued
	 * behind it on the same connection, so a lock taken late is given back at once.
	 * @param keys the lock's keys
	 * @param token the token of the attempt
	 */
	void releaseLater(List<String> keys, String token) {
		this.runner.executeAsync(RELEASE, List.of(keys.get(0), keys.get(2)), token)
			.whenComplete((released, ex) -> logger.debug("Released a late lock '" + keys.get(0) + "': " + released));
	}

	void lost(RedisLockHandle handle) {
		this.metrics.leaseLost(handle.name());
		for (LockListener listener : this.listeners) {
			try {
				listener.onLeaseLost(handle);
			}
			catch (RuntimeException ex) {
				logger.warn("LockListener " + listener + " failed for lock '" + handle.key() + "'", ex);
			}
		}
	}

	static String newToken() {
		// unique across processes (the SecureRandom prefix) and acquisitions (the
		// counter)
		return PROCESS_TOKEN + Long.toHexString(TOKENS.incrementAndGet()) + ':'
				+ Long.toHexString(ThreadLocalRandom.current().nextLong());
	}

	LockMetrics metrics() {
		return this.metrics;
	}

	LockSettings settings() {
		return this.settings;
	}

	LockWaiters waiters() {
		return this.waiters;
	}

	@Override
	public void destroy() {
		this.watchdog.shutdown();
		this.waiters.shutdown();
	}

}
