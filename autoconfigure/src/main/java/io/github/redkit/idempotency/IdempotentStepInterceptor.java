package io.github.redkit.idempotency;

import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.github.redkit.core.KeyExpressionEvaluator;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs {@link IdempotentStep} methods: claims the step (one script call), then runs the
 * method and records its result, returns the recorded result of a duplicate, or throws
 * for a step out of order or in progress.
 */
public class IdempotentStepInterceptor implements MethodInterceptor {

	private final Map<MethodClassKey, StepDefinition> definitions = new ConcurrentHashMap<>();

	private final SingletonSupplier<IdempotentSteps> steps;

	private final SingletonSupplier<KeyExpressionEvaluator> keys;

	private final SingletonSupplier<StepResults> results;

	/**
	 * Creates an interceptor. Its collaborators are looked up on first use, so that an
	 * advisor (created early) does not create them early.
	 * @param steps claims and records steps
	 * @param keys evaluates the operation expressions
	 * @param results reads results and hashes fingerprints as JSON
	 */
	public IdempotentStepInterceptor(Supplier<IdempotentSteps> steps, Supplier<KeyExpressionEvaluator> keys,
			Supplier<StepResults> results) {
		this.steps = SingletonSupplier.of(steps);
		this.keys = SingletonSupplier.of(keys);
		this.results = SingletonSupplier.of(results);
	}

	@Override
	public Object invoke(MethodInvocation invocation) throws Throwable {
		Method method = invocation.getMethod();
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : method.getDeclaringClass();
		StepDefinition definition = this.definitions.computeIfAbsent(new MethodClassKey(method, targetClass),
				(key) -> StepDefinition.of(method, targetClass));
		Object[] args = invocation.getArguments();
		String operation = this.keys.obtain().evaluate(definition.operation(), method, target, args);
		String fingerprint = (definition.fingerprint() != null)
				? this.results.obtain().fingerprint(definition.fingerprint(), method, target, args) : null;
		StepClaim claim = this.steps.obtain()
			.claim(operation, definition.step(), definition.after(), definition.ttl(), definition.lease(), fingerprint);
		switch (claim.outcome()) {
			case DUPLICATE:
				return this.results.obtain().read(claim.storedResult(), definition.resultType());
			case OUT_OF_ORDER:
				Set<String> recorded = new LinkedHashSet<>(claim.doneSteps());
				recorded.addAll(claim.inProgressSteps());
				throw new StepOutOfOrderException(operation, definition.step(), definition.after(), recorded);
			case IN_PROGRESS:
				throw new StepInProgressException(operation, definition.step(), claim.inProgressSteps());
			default:
				return runClaimed(invocation, claim);
		}
	}

	private Object runClaimed(MethodInvocation invocation, StepClaim claim) throws Throwable {
		Object result;
		try {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			// the step did not happen: let a retry run it
			try {
				this.steps.obtain().abandon(claim);
			}
			catch (RuntimeException abandonFailure) {
				ex.addSuppressed(abandonFailure);
			}
			throw ex;
		}
		this.steps.obtain().complete(claim, result);
		return result;
	}

}
