package io.github.redkit.lock.internal;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.github.redkit.core.internal.AnnotationDurations;
import io.github.redkit.core.internal.KeyExpressionEvaluator;
import io.github.redkit.core.internal.ReactiveCall;
import io.github.redkit.lock.DistributedLock;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.internal.LockedExecution;
import io.github.redkit.lock.internal.ReactiveLockedExecution;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Runs {@code @DistributedLock} methods under their lock. The annotation is read once per
 * method and target class; the key expression is evaluated on every call. A method that
 * returns a {@code Mono}, a {@code Flux} or a {@code CompletableFuture} takes the lock
 * when its result is subscribed to, without blocking, and holds it until the result
 * completes, fails or is cancelled.
 */
public class LockInterceptor implements MethodInterceptor {

	private final Supplier<DistributedLocks> locks;

	private final Supplier<KeyExpressionEvaluator> evaluator;

	private final Supplier<Duration> defaultWait;

	private final Map<AnnotatedElementKey, LockAttributes> attributes = new ConcurrentHashMap<>();

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
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target)
				: invocation.getMethod().getDeclaringClass();
		LockAttributes lock = this.attributes.computeIfAbsent(
				new AnnotatedElementKey(invocation.getMethod(), targetClass),
				(k) -> LockAttributes.of(invocation.getMethod(), targetClass, this.defaultWait.get()));
		if (lock == null) {
			return invocation.proceed();
		}
		String key = this.evaluator.get()
			.evaluate(lock.keyExpression(), invocation.getMethod(), target, invocation.getArguments());
		if (lock.reactive()) {
			ReactiveCall call = Objects.requireNonNull(ReactiveCall.of(invocation));
			return call.adapt(ReactiveLockedExecution.run(this.locks.get(), lock.keyExpression(), key, lock.waitTime(),
					lock.leaseTime(), call::proceed));
		}
		return LockedExecution.run(this.locks.get(), lock.keyExpression(), key, lock.waitTime(), lock.leaseTime(),
				invocation::proceed);
	}

	/**
	 * The parsed annotation of one method.
	 *
	 * @param keyExpression the key expression, also the lock's name
	 * @param waitTime how long to wait
	 * @param leaseTime the explicit lease, {@code null} for the default lease, renewed
	 * @param reactive whether the method returns a publisher or a future, held until it
	 * completes
	 */
	record LockAttributes(String keyExpression, Duration waitTime, @Nullable Duration leaseTime, boolean reactive) {

		static @Nullable LockAttributes of(Method method, Class<?> targetClass, Duration defaultWait) {
			Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
			DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(specific, DistributedLock.class);
			if (annotation == null) {
				annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
			}
			if (annotation == null) {
				return null;
			}
			String where = " on " + specific.getDeclaringClass().getSimpleName() + "." + specific.getName() + "()";
			if (annotation.key().isBlank()) {
				throw new IllegalStateException("@DistributedLock.key must not be empty" + where);
			}
			boolean reactive = ReactiveCall.isReactive(specific);
			if (!reactive && ReactiveCall.isDeferred(specific.getReturnType())) {
				// held around the call, the lock would be given back before the result
				// exists
				throw new IllegalStateException(
						"@DistributedLock" + where + ": " + specific.getReturnType().getSimpleName()
								+ " results are not supported; return a value, a CompletableFuture, a Mono or a Flux");
			}
			Duration wait = AnnotationDurations.parse(annotation.waitTime(), defaultWait,
					"@DistributedLock.waitTime" + where);
			Duration lease = AnnotationDurations.parse(annotation.leaseTime(), null,
					"@DistributedLock.leaseTime" + where);
			if (lease != null && lease.toMillis() < 1) {
				throw new IllegalArgumentException("@DistributedLock.leaseTime" + where + " must be at least 1ms");
			}
			return new LockAttributes(annotation.key(), Objects.requireNonNull(wait), lease, reactive);
		}

	}

}
