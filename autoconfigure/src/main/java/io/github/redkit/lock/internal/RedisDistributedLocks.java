package io.github.redkit.lock.internal;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.RedkitOutcomes;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.LockListener;
import io.github.redkit.lock.LockObservationKind;
import io.github.redkit.lock.LockSettings;
import io.github.redkit.lock.internal.LockedExecution;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.util.Assert;

/**
 * {@link DistributedLocks} on Redis. One key per lock, {@code <prefix>:lock:{<key>}}: a
 * record of the last fencing token, the holder's random token, the lease end (Redis time)
 * and a flag that tells the release to publish, living an hour past the lease so that the
 * last fencing token survives it. The calls go one way: this face starts an acquisition,
 * which hands back a handle that the watchdog renews; all of them reach Redis through
 * {@link LockScripts} and report through {@link LockEvents}.
 */
public class RedisDistributedLocks implements DistributedLocks, DisposableBean {

	private static final RedkitOutcomes<Optional<RedisLockHandle>> ACQUIRED = RedkitOutcomes
		.of((handle) -> handle.isPresent() ? "acquired" : "not-acquired");

	private final LockScripts scripts;

	private final LockSettings settings;

	private final LockEvents events;

	private final LockWatchdog watchdog;

	private final LockWaiters waiters;

	private final RedkitObservations observations;

	/**
	 * Creates the locks.
	 * @param runner runs the scripts
	 * @param keyspace builds the keys
	 * @param settings default lease, Redis timeout, retry fallback
	 * @param metrics where to report, {@link RedkitMetrics#NONE} for nowhere
	 * @param observations where acquisitions and holds are observed (as
	 * {@code redkit.lock.acquisition} and {@code redkit.lock.hold}),
	 * {@link RedkitObservations#NONE} for nowhere
	 * @param listeners called when a held lock is lost
	 */
	public RedisDistributedLocks(RedisScriptRunner runner, RedisKeyspace keyspace, LockSettings settings,
			RedkitMetrics metrics, RedkitObservations observations, List<LockListener> listeners) {
		Assert.notNull(observations, "observations must not be null");
		this.observations = observations;
		this.scripts = new LockScripts(runner, keyspace, settings.redisTimeout());
		this.settings = settings;
		this.events = new LockEvents(metrics, listeners);
		this.watchdog = new LockWatchdog(this.scripts, this.events);
		this.waiters = new LockWaiters(runner.connectionFactory());
	}

	@Override
	public Optional<LockHandle> tryLock(String name, String key, Duration wait, @Nullable Duration lease) {
		LockAcquisition acquisition = acquisition(name, key, wait, lease);
		Optional<RedisLockHandle> handle = this.observations.observe(LockObservationKind.ACQUIRE, name,
				acquisition::acquire, ACQUIRED);
		handle.ifPresent((acquired) -> hold(acquired, name, lease));
		return handle.map(LockHandle.class::cast);
	}

	@Override
	public CompletableFuture<Optional<LockHandle>> tryLockAsync(String name, String key, Duration wait,
			@Nullable Duration lease) {
		LockAcquisition acquisition = acquisition(name, key, wait, lease);
		CompletableFuture<Optional<LockHandle>> answer = new CompletableFuture<>();
		this.observations.observeAsync(LockObservationKind.ACQUIRE, name, acquisition::acquireAsync, ACQUIRED)
			.whenComplete((handle, failure) -> {
				if (failure != null) {
					answer.completeExceptionally(RedisScriptRunner.unwrap(failure));
					return;
				}
				try {
					handle.ifPresent((acquired) -> hold(acquired, name, lease));
				}
				catch (RuntimeException ex) {
					// the answer exists: it must complete whatever happens here
					answer.completeExceptionally(ex);
					return;
				}
				if (!answer.complete(handle.map(LockHandle.class::cast))) {
					// nobody waits for it any more (cancelled): it must not stay taken
					handle.ifPresent(RedisLockHandle::releaseAsync);
				}
			});
		answer.whenComplete((handle, ex) -> {
			if (answer.isCancelled()) {
				acquisition.abandon();
			}
		});
		return answer;
	}

	private LockAcquisition acquisition(String name, String key, Duration wait, @Nullable Duration lease) {
		Assert.hasText(name, "Lock name must not be empty");
		Assert.hasText(key, "Lock key must not be null, empty or blank");
		Assert.notNull(wait, "Wait must not be null (use Duration.ZERO to try once)");
		Assert.isTrue(!wait.isNegative(), "Wait must not be negative");
		Assert.isTrue(lease == null || lease.toMillis() > 0, "Lease must be at least 1 ms");
		return new LockAcquisition(this.scripts, this.events, this.waiters, this.settings.retryInterval(),
				new LockRequest(name, key, wait, leaseTime(lease), lease == null));
	}

	private Duration leaseTime(@Nullable Duration lease) {
		return (lease != null) ? lease : this.settings.leaseTime();
	}

	private void hold(RedisLockHandle handle, String name, @Nullable Duration lease) {
		try {
			// not in scope: a handle may be closed on another thread
			handle.observeHold(this.observations.startUnscoped(LockObservationKind.HOLD, name));
			this.watchdog.watch(handle, leaseTime(lease));
		}
		catch (RuntimeException ex) {
			// a lease nobody watches (the bean is being destroyed): given back, not held
			// until the lease ends
			handle.releaseAsync();
			throw ex;
		}
	}

	@Override
	public <T> @Nullable T withLock(String key, Duration wait, @Nullable Duration lease, Supplier<T> action) {
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

	/**
	 * How many threads of this process wait for a lock. For tests.
	 * @param key the lock's key
	 * @return the waiting threads
	 */
	public int waitingThreads(String key) {
		return this.waiters.waiting(redisKeys(key).get(0));
	}

	/**
	 * The Redis keys of a lock, for tests and tools.
	 * @param key the lock's key
	 * @return the lock's record, then where a lock of the previous layout is remembered
	 * while an upgraded instance meets one
	 */
	public List<String> redisKeys(String key) {
		return this.scripts.redisKeys(key);
	}

	@Override
	public void destroy() {
		this.watchdog.shutdown();
		this.waiters.shutdown();
	}

}
