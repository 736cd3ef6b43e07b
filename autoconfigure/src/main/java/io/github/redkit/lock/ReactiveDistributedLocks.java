package io.github.redkit.lock;

import java.time.Duration;
import java.util.function.Supplier;

import io.github.redkit.lock.internal.ReactiveLockedExecution;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The {@link DistributedLocks}' reactive face: the same locks, keys, scripts, fencing
 * tokens, meters and failure (a {@link LockUnavailableException} error when Redis cannot
 * be reached in time), acquired on subscription, and waited for without blocking a thread
 * (a timer, or the holder's release).
 */
public interface ReactiveDistributedLocks {

	/**
	 * Tries to acquire a lock; the caller releases it with
	 * {@link LockHandle#releaseAsync()}. Cancelling the subscription while it waits stops
	 * the wait, and a lock acquired after that is released.
	 * @param name a low-cardinality name for metrics (never a key built from a request)
	 * @param key the key (any string; it is escaped)
	 * @param wait how long to wait, {@link Duration#ZERO} to try once
	 * @param lease how long the lock lives unless extended; {@code null} for
	 * {@code redkit.lock.lease-time}, renewed until the handle is released
	 * @return the handle, or empty when the lock was not acquired in time
	 */
	Mono<LockHandle> tryLock(String name, String key, Duration wait, @Nullable Duration lease);

	/**
	 * Subscribes to an action's publisher while holding a lock: the lock is acquired on
	 * subscription and released when the publisher completes, fails or is cancelled. Its
	 * values pass as they come, its completion once the release is answered (a subscriber
	 * that cuts it short, e.g. with {@code next()}, cancels it: the release then follows
	 * the value). Inside the action, {@link #current()} emits the handle.
	 * @param <T> the values' type
	 * @param key the key
	 * @param wait how long to wait
	 * @param lease the lease; {@code null} for the default lease, renewed while the
	 * action runs
	 * @param action creates the publisher, once per subscription
	 * @return the action's values; a {@link LockNotAcquiredException} error when the lock
	 * was not acquired in time, a {@link LockLostException} error when the lease was lost
	 * before the publisher completed
	 */
	<T> Flux<T> withLock(String key, Duration wait, @Nullable Duration lease, Supplier<? extends Publisher<T>> action);

	/**
	 * The innermost lock held by the {@code @DistributedLock} method or {@link #withLock}
	 * action whose publisher reads it (from the subscriber's context).
	 * @return the handle, or empty outside such a publisher
	 */
	static Mono<LockHandle> current() {
		return ReactiveLockedExecution.current();
	}

}
