package io.github.redkit.lock.internal;

import java.time.Duration;
import java.util.function.Supplier;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.ReactiveDistributedLocks;
import io.github.redkit.lock.internal.ReactiveLockedExecution;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The {@link ReactiveDistributedLocks} on {@link DistributedLocks}' asynchronous
 * acquisition, so that both faces share one implementation of every lock operation.
 */
public class DefaultReactiveDistributedLocks implements ReactiveDistributedLocks {

	private final DistributedLocks locks;

	/**
	 * Creates the reactive face of the locks.
	 * @param locks the locks
	 */
	public DefaultReactiveDistributedLocks(DistributedLocks locks) {
		this.locks = locks;
	}

	@Override
	public Mono<LockHandle> tryLock(String name, String key, Duration wait, @Nullable Duration lease) {
		return Mono.fromFuture(() -> this.locks.tryLockAsync(name, key, wait, lease)).flatMap(Mono::justOrEmpty);
	}

	@Override
	public <T> Flux<T> withLock(String key, Duration wait, @Nullable Duration lease,
			Supplier<? extends Publisher<T>> action) {
		return ReactiveLockedExecution.run(this.locks, DistributedLocks.UNNAMED, key, wait, lease, action);
	}

}
