package io.github.redkit.lock.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.redkit.core.internal.ReactiveHold;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.LockLostException;
import io.github.redkit.lock.LockNotAcquiredException;
import io.github.redkit.lock.ReactiveDistributedLocks;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * Runs a publisher under a lock: the shared reactive path of {@code @DistributedLock} and
 * {@link ReactiveDistributedLocks#withLock}, as {@link LockedExecution} is the blocking
 * one, held through {@link ReactiveHold} like every reactive hold. The held locks travel
 * in the subscriber's context (a publisher may run on any thread), innermost last.
 */
public final class ReactiveLockedExecution {

	private static final Object HELD = ReactiveLockedExecution.class.getName() + ".held";

	private ReactiveLockedExecution() {
	}

	/**
	 * The innermost lock held by the subscriber's reactive context.
	 * @return the handle, or empty outside a locked publisher
	 */
	public static Mono<LockHandle> current() {
		return Mono.deferContextual((context) -> {
			List<LockHandle> held = held(context);
			return held.isEmpty() ? Mono.empty() : Mono.just(held.get(held.size() - 1));
		});
	}

	/**
	 * A publisher of many values under a lock: they pass as they come, the completion
	 * once the lock is released.
	 */
	static <T> Flux<T> run(DistributedLocks locks, String name, String key, Duration wait, @Nullable Duration lease,
			Supplier<? extends Publisher<T>> action) {
		return Flux.deferContextual((context) -> ReactiveHold.many(acquire(context, locks, name, key, wait, lease),
				inside(context, action), ReactiveLockedExecution::release));
	}

	/**
	 * A publisher of at most one value under a lock: the value once the lock is released.
	 */
	static <T> Mono<T> runOne(DistributedLocks locks, String name, String key, Duration wait, @Nullable Duration lease,
			Supplier<? extends Publisher<T>> action) {
		return Mono.deferContextual((context) -> ReactiveHold.one(acquire(context, locks, name, key, wait, lease),
				inside(context, action), ReactiveLockedExecution::release));
	}

	private static Mono<LockHandle> acquire(ContextView context, DistributedLocks locks, String name, String key,
			Duration wait, @Nullable Duration lease) {
		if (held(context).stream().anyMatch((handle) -> handle.key().equals(key) && handle.isHeld())) {
			// waiting for ourselves would only end when the wait time runs out
			return Mono.error(new IllegalStateException("Lock '" + key + "' is already held by this publisher:"
					+ " Redkit locks are not re-entrant (use ReactiveDistributedLocks.current() to reach it)"));
		}
		long start = System.nanoTime();
		return Mono.fromFuture(() -> locks.tryLockAsync(name, key, wait, lease))
			.flatMap((handle) -> handle.map(Mono::just)
				.orElseGet(() -> Mono
					.error(new LockNotAcquiredException(name, key, Duration.ofNanos(System.nanoTime() - start)))));
	}

	private static <T> Function<LockHandle, Publisher<T>> inside(ContextView context,
			Supplier<? extends Publisher<T>> action) {
		List<LockHandle> held = held(context);
		return (handle) -> Flux.<T>from(action.get()).contextWrite((inner) -> inner.put(HELD, with(held, handle)));
	}

	private static CompletableFuture<Optional<Throwable>> release(LockHandle handle) {
		// a lease lost before the release is the publisher's own error: its result was
		// not protected
		return handle.releaseAsync()
			.<Optional<Throwable>>thenApply(
					(wasHeld) -> wasHeld ? Optional.empty() : Optional.of(new LockLostException(handle)));
	}

	private static List<LockHandle> held(ContextView context) {
		return context.<List<LockHandle>>getOrEmpty(HELD).orElse(List.of());
	}

	private static List<LockHandle> with(List<LockHandle> held, LockHandle handle) {
		List<LockHandle> more = new ArrayList<>(held);
		more.add(handle);
		return List.copyOf(more);
	}

}
