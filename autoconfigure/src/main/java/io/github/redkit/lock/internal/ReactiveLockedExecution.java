package io.github.redkit.lock.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

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
 * one. The held locks travel in the subscriber's context (a publisher may run on any
 * thread), innermost last.
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

	static <T> Flux<T> run(DistributedLocks locks, String name, String key, Duration wait, @Nullable Duration lease,
			Supplier<? extends Publisher<T>> action) {
		return Flux.deferContextual((context) -> {
			List<LockHandle> held = held(context);
			if (held.stream().anyMatch((handle) -> handle.key().equals(key) && handle.isHeld())) {
				// waiting for ourselves would only end when the wait time runs out
				return Flux.error(new IllegalStateException("Lock '" + key + "' is already held by this publisher:"
						+ " Redkit locks are not re-entrant (use ReactiveDistributedLocks.current() to reach it)"));
			}
			long start = System.nanoTime();
			Mono<LockHandle> acquired = Mono.fromFuture(() -> locks.tryLockAsync(name, key, wait, lease))
				.flatMap((handle) -> handle.map(Mono::just)
					.orElseGet(() -> Mono
						.error(new LockNotAcquiredException(name, key, Duration.ofNanos(System.nanoTime() - start)))));
			// released after the last value, inside the flux: a lease lost before then
			// is the flux's own error, not a failed clean-up
			return Flux.usingWhen(acquired,
					(handle) -> Flux.<T>from(action.get())
						.contextWrite((inner) -> inner.put(HELD, with(held, handle)))
						.concatWith(Mono.fromFuture(handle::releaseAsync)
							.flatMap((wasHeld) -> wasHeld ? Mono.empty() : Mono.error(new LockLostException(handle)))),
					(handle) -> Mono.empty(), (handle, error) -> Mono.fromFuture(handle::releaseAsync),
					(handle) -> Mono.fromFuture(handle::releaseAsync));
		});
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
