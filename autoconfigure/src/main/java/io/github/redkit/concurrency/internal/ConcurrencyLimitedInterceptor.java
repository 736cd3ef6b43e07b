package io.github.redkit.concurrency.internal;

import java.lang.reflect.Method;
import java.util.Optional;
import java.util.function.Supplier;

import io.github.redkit.concurrency.ConcurrencyLimitExceededException;
import io.github.redkit.concurrency.ConcurrencyLimited;
import io.github.redkit.concurrency.ConcurrencyLimiter;
import io.github.redkit.concurrency.ConcurrencyPermit;
import io.github.redkit.core.internal.KeyExpressionEvaluator;
import io.github.redkit.core.internal.ReactiveCall;
import io.github.redkit.core.internal.RedkitInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * Applies {@link ConcurrencyLimited}: evaluates the key expression, takes a permit (one
 * round trip), runs the call and gives the permit back (one round trip), or throws
 * {@link ConcurrencyLimitExceededException} without running it. The permit is given back
 * when the method returns; a method whose result arrives later (a {@code Mono}, a
 * {@code Flux}, a {@code CompletableFuture}, see {@link ReactiveCall}) takes it on
 * subscription and holds it until that result completes, fails or is cancelled. A
 * subscriber that cancels while the permit is being taken leaves nothing held: the permit
 * is given back once Redis grants it.
 */
public class ConcurrencyLimitedInterceptor extends RedkitInterceptor<ConcurrencyLimitedOperation> {

	private final Supplier<ConcurrencyLimiter> limiter;

	private final Supplier<KeyExpressionEvaluator> evaluator;

	/**
	 * Creates an interceptor; its collaborators are looked up on first use so that
	 * creating the advisor does not create Redis beans early.
	 * @param limiter the concurrency limiter
	 * @param evaluator evaluates key expressions
	 */
	public ConcurrencyLimitedInterceptor(Supplier<ConcurrencyLimiter> limiter,
			Supplier<KeyExpressionEvaluator> evaluator) {
		this.limiter = limiter;
		this.evaluator = evaluator;
	}

	@Override
	protected @Nullable ConcurrencyLimitedOperation read(Method specificMethod, Method method, Class<?> targetClass) {
		return ConcurrencyLimitedOperation.of(specificMethod, targetClass);
	}

	@Override
	protected @Nullable Object invoke(MethodInvocation invocation, ConcurrencyLimitedOperation operation)
			throws Throwable {
		String expression = operation.keyExpression();
		String key = (expression != null)
				? this.evaluator.get()
					.evaluate(expression, invocation.getMethod(), invocation.getThis(), invocation.getArguments())
				: ConcurrencyLimitedOperation.SHARED_KEY;
		ConcurrencyLimiter limiter = this.limiter.get();
		LimitReference limit = operation.limit();
		ReactiveCall reactive = operation.reactive() ? ReactiveCall.of(invocation) : null;
		if (reactive != null) {
			return reactive.proceedWhileHolding(
					() -> limit.tryAcquireAsync(limiter, key)
						.thenApply((permit) -> granted(operation, limiter, key, permit)),
					ConcurrencyPermit::closeAsync);
		}
		try (ConcurrencyPermit held = granted(operation, limiter, key, limit.tryAcquire(limiter, key))) {
			return invocation.proceed();
		}
	}

	private static ConcurrencyPermit granted(ConcurrencyLimitedOperation operation, ConcurrencyLimiter limiter,
			String key, Optional<ConcurrencyPermit> permit) {
		if (permit.isPresent()) {
			return permit.get();
		}
		LimitReference limit = operation.limit();
		throw new ConcurrencyLimitExceededException(limit.name(), limit.limit(limiter),
				(operation.keyExpression() != null) ? key : null);
	}

}
