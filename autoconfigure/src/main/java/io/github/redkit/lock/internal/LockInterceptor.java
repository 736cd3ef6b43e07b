package io.github.redkit.lock.internal;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

import io.github.redkit.core.internal.KeyExpressionEvaluator;
import io.github.redkit.core.internal.ReactiveCall;
import io.github.redkit.core.internal.RedkitInterceptor;
import io.github.redkit.lock.DistributedLocks;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * Runs {@code @DistributedLock} methods under their lock. The annotation is read once per
 * method and target class (by the base); the key expression is evaluated on every call. A
 * method that returns a {@code Mono}, a {@code Flux} or a {@code CompletableFuture} takes
 * the lock when its result is subscribed to, without blocking, and holds it until the
 * result completes, fails or is cancelled.
 */
public class LockInterceptor extends RedkitInterceptor<LockOperation> {

	private final Supplier<DistributedLocks> locks;

	private final Supplier<KeyExpressionEvaluator> evaluator;

	private final Supplier<Duration> defaultWait;

	/**
	 * Creates an interceptor; its collaborators are looked up on first use, so that the
	 * advisor does not create them early.
	 * @param locks the locks
	 * @param evaluator evaluates key expressions
	 * @param defaultWait the wait of annotations that give none
	 */
	public LockInterceptor(Supplier<DistributedLocks> locks, Supplier<KeyExpressionEvaluator> evaluator,
			Supplier<Duration> defaultWait) {
		this.locks = locks;
		this.evaluator = evaluator;
		this.defaultWait = defaultWait;
	}

	@Override
	protected @Nullable LockOperation read(Method specificMethod, Method method, Class<?> targetClass) {
		return LockOperation.of(specificMethod, method, this.defaultWait.get());
	}

	@Override
	protected @Nullable Object invoke(MethodInvocation invocation, LockOperation lock) throws Throwable {
		String key = this.evaluator.get()
			.evaluate(lock.keyExpression(), invocation.getMethod(), invocation.getThis(), invocation.getArguments());
		if (lock.reactive()) {
			ReactiveCall call = Objects.requireNonNull(ReactiveCall.of(invocation));
			DistributedLocks locks = this.locks.get();
			// a single value waits for the release, so that a call made on receiving it
			// finds the lock free
			return call.adapt(call.multiValue()
					? ReactiveLockedExecution.run(locks, lock.keyExpression(), key, lock.waitTime(), lock.leaseTime(),
							call::proceed)
					: ReactiveLockedExecution.runOne(locks, lock.keyExpression(), key, lock.waitTime(),
							lock.leaseTime(), call::proceed));
		}
		return LockedExecution.run(this.locks.get(), lock.keyExpression(), key, lock.waitTime(), lock.leaseTime(),
				invocation::proceed);
	}

}
