package io.github.redkit.lock.internal;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;

import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.lock.LockUnavailableException;

import org.springframework.dao.DataAccessException;

/**
 * One call to {@code tryLock}: an attempt, and while the wait lasts, a sleep until the
 * holder's release is published and wakes this waiter (one per process and release, the
 * longest waiting first), or the lease ends, or a jittered fallback interval passes; then
 * another attempt. Every attempt is one script call. The blocking face sleeps between
 * attempts; the asynchronous one waits on a timer or the notification, and shares
 * everything else.
 */
final class LockAcquisition {

	private final LockScripts scripts;

	private final LockEvents events;

	private final LockWaiters waiters;

	private final Duration retryInterval;

	private final String name;

	private final String key;

	private final List<String> keys;

	private final String token = LockScripts.newToken();

	private final long start = System.nanoTime();

	private final long deadline;

	private final Duration lease;

	private final LockRequest request;

	// when the last attempt was sent: the lease is counted from there
	private volatile long sent;

	// whether the last attempt told Redis that others of this process wait after it
	private volatile boolean sentOthersWait;

	private volatile boolean abandoned;

	LockAcquisition(LockScripts scripts, LockEvents events, LockWaiters waiters, Duration retryInterval,
			LockRequest request) {
		this.scripts = scripts;
		this.events = events;
		this.waiters = waiters;
		this.retryInterval = retryInterval;
		this.request = request;
		this.name = request.name();
		this.key = request.key();
		this.keys = scripts.redisKeys(this.key);
		this.deadline = this.start + RedisLockHandle.nanos(request.maxWait());
		this.lease = request.lease();
	}

	Optional<RedisLockHandle> acquire() {
		long result = attempt(false);
		if (result <= 0 && remainingNanos() > 0) {
			LockWaiters.Waiter waiter = this.waiters.subscribe(this.keys.get(0), Duration.ofNanos(remainingNanos()));
			try {
				// try again once subscribed: a release published before the subscription
				// would otherwise be missed
				result = attempt(waiter.othersWait());
				while (result <= 0 && remainingNanos() > 0) {
					waiter.await(sleep(-result));
					result = attempt(waiter.othersWait());
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				this.waiters.unsubscribe(waiter, result > 0);
			}
		}
		return handle(result);
	}

	/**
	 * The same acquisition without blocking a thread: the attempts are sent
	 * asynchronously and the wait between them is a timer or the release's notification.
	 * Subscribing to the notification, which may block, runs on
	 * {@link RedisScriptRunner#blockingSteps()}.
	 * @return the handle, or empty when the lock was not acquired in time
	 */
	CompletableFuture<Optional<RedisLockHandle>> acquireAsync() {
		return attemptAsync(false).thenCompose((result) -> {
			if (result > 0 || remainingNanos() <= 0 || this.abandoned) {
				return CompletableFuture.completedFuture(result);
			}
			Executor blocking = RedisScriptRunner.blockingSteps();
			return CompletableFuture
				.supplyAsync(() -> this.waiters.subscribe(this.keys.get(0), Duration.ofNanos(remainingNanos())),
						blocking)
				.thenCompose((waiter) -> waitAsync(waiter).whenCompleteAsync(
						(acquired, ex) -> this.waiters.unsubscribe(waiter, acquired != null && acquired > 0),
						blocking));
		}).thenApply(this::handle);
	}

	private CompletableFuture<Long> waitAsync(LockWaiters.Waiter waiter) {
		// tried again once subscribed: a release published before would be missed
		return attemptAsync(waiter.othersWait()).thenCompose((result) -> {
			if (result > 0 || remainingNanos() <= 0 || this.abandoned) {
				return CompletableFuture.completedFuture(result);
			}
			return waiter.awaitAsync(sleep(-result))
				.thenComposeAsync((woken) -> waitAsync(waiter), RedisScriptRunner.blockingSteps());
		});
	}

	/**
	 * Stops an asynchronous acquisition from trying again: nobody waits for it any more.
	 */
	void abandon() {
		this.abandoned = true;
	}

	private Optional<RedisLockHandle> handle(long result) {
		if (result <= 0) {
			this.events.acquireAttempt(this.name, "not_acquired", elapsed());
			return Optional.empty();
		}
		RedisLockHandle handle = new RedisLockHandle(this.scripts, this.events, this.request, this.keys, this.token,
				result, this.sent);
		if (this.sentOthersWait) {
			handle.othersWait();
		}
		return Optional.of(handle);
	}

	private long attempt(boolean othersWait) {
		long remainingMillis = Math.max(0, remainingNanos() / 1_000_000);
		this.sent = System.nanoTime();
		this.sentOthersWait = othersWait;
		try {
			return attempted(this.scripts.acquire(this.keys, this.token, this.lease, remainingMillis, othersWait));
		}
		catch (DataAccessException ex) {
			throw unavailable(ex);
		}
	}

	private CompletableFuture<Long> attemptAsync(boolean othersWait) {
		long remainingMillis = Math.max(0, remainingNanos() / 1_000_000);
		this.sent = System.nanoTime();
		this.sentOthersWait = othersWait;
		return this.scripts.acquireAsync(this.keys, this.token, this.lease, remainingMillis, othersWait)
			.handle((result, failure) -> {
				if (failure == null) {
					return attempted(result);
				}
				Throwable ex = RedisScriptRunner.unwrap(failure);
				throw (ex instanceof DataAccessException dataAccess) ? unavailable(dataAccess)
						: new CompletionException(ex);
			});
	}

	private long attempted(long result) {
		if (result > 0) {
			this.events.acquireAttempt(this.name, "acquired", elapsed());
		}
		return result;
	}

	private LockUnavailableException unavailable(DataAccessException ex) {
		this.events.acquireAttempt(this.name, "error", elapsed());
		// the unanswered attempt may still run once Redis answers again: undo it then
		this.scripts.releaseLater(this.keys, this.token);
		return new LockUnavailableException(
				"Could not acquire lock '" + this.key + "' (" + this.name + "): " + ex.getMessage(), ex);
	}

	private Duration sleep(long leaseLeftMillis) {
		long fallback = this.retryInterval.toNanos();
		// jitter keeps waiters that missed a notification from retrying in lockstep
		long jittered = fallback / 2 + ThreadLocalRandom.current().nextLong(fallback / 2 + 1);
		long untilLeaseEnds = leaseLeftMillis * 1_000_000 + 1_000_000;
		return Duration.ofNanos(Math.max(0, Math.min(Math.min(jittered, untilLeaseEnds), remainingNanos())));
	}

	private long remainingNanos() {
		return this.deadline - System.nanoTime();
	}

	private Duration elapsed() {
		return Duration.ofNanos(System.nanoTime() - this.start);
	}

}
