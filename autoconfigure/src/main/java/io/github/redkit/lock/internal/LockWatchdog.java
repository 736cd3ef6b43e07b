package io.github.redkit.lock.internal;

import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redkit.core.internal.RedkitThreads;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Watches held locks on one daemon thread: renews the leases of locks taken without an
 * explicit lease (every third of the lease, without blocking the thread), and notices
 * when a lease runs out while its holder still runs, so that the loss is reported while
 * it matters, not at release time.
 */
final class LockWatchdog {

	private static final Log logger = LogFactory.getLog(LockWatchdog.class);

	private final ScheduledThreadPoolExecutor executor;

	private final LockScripts scripts;

	private final LockEvents events;

	LockWatchdog(LockScripts scripts, LockEvents events) {
		this.scripts = scripts;
		this.events = events;
		this.executor = new ScheduledThreadPoolExecutor(1, RedkitThreads.factory("redkit-lock-watchdog"));
		// released locks cancel their task: keep the queue small
		this.executor.setRemoveOnCancelPolicy(true);
	}

	void watch(RedisLockHandle handle, Duration lease) {
		if (handle.renewed()) {
			long period = Math.max(1, RedisLockHandle.nanos(lease) / 3);
			AtomicBoolean inFlight = new AtomicBoolean();
			handle.watch = this.executor.scheduleWithFixedDelay(() -> renew(handle, lease, inFlight), period, period,
					TimeUnit.NANOSECONDS);
		}
		else {
			long remaining = handle.leaseEndNanos() - System.nanoTime();
			handle.watch = this.executor.schedule(() -> expire(handle), Math.max(0, remaining), TimeUnit.NANOSECONDS);
		}
	}

	private void expire(RedisLockHandle handle) {
		long remaining = handle.leaseEndNanos() - System.nanoTime();
		if (handle.state() != RedisLockHandle.HELD) {
			return;
		}
		if (remaining > 0) {
			// extended meanwhile: look again when the new lease ends
			handle.watch = this.executor.schedule(() -> expire(handle), remaining, TimeUnit.NANOSECONDS);
			return;
		}
		handle.markLost();
	}

	private void renew(RedisLockHandle handle, Duration lease, AtomicBoolean inFlight) {
		if (handle.state() != RedisLockHandle.HELD) {
			cancel(handle);
			return;
		}
		if (handle.leaseEnded()) {
			// renewals kept failing until the lease ran out: Redis may have given it away
			this.events.renewal(handle.name(), "lost");
			handle.markLost();
			cancel(handle);
			return;
		}
		if (!inFlight.compareAndSet(false, true)) {
			return;
		}
		long sent = System.nanoTime();
		this.scripts.extendAsync(handle.redisKeys(), handle.token(), handle.fencingToken(), lease)
			.whenComplete((extended, ex) -> {
				inFlight.set(false);
				if (ex != null) {
					this.events.renewal(handle.name(), "error");
					logger.debug("Could not renew lock '" + handle.key() + "'; retrying until its lease ends", ex);
				}
				else if (extended.isPresent()) {
					handle.extended(sent, lease, extended.getAsDouble());
					this.events.renewal(handle.name(), "renewed");
				}
				else {
					this.events.renewal(handle.name(), "lost");
					handle.markLost();
				}
			});
	}

	private static void cancel(RedisLockHandle handle) {
		if (handle.watch != null) {
			handle.watch.cancel(false);
		}
	}

	void shutdown() {
		this.executor.shutdownNow();
	}

}
