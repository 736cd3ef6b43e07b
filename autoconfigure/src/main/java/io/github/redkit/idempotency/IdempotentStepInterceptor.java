package io.github.redkit.idempotency;

import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.github.redkit.core.KeyExpressionEvaluator;
import io.github.redkit.core.LeaseRenewer;
import io.github.redkit.core.RedkitInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * Runs {@link IdempotentStep} methods: claims the step (one script call), then runs the
 * method with its lease renewed and records its result, returns the recorded result of a
 * duplicate, or throws for a step out of order or in progress. A claim lost while the
 * method ran (its lease could not be renewed and another delivery took the step over)
 * records nothing and throws {@link StepClaimLostException} after the method returned.
 */
public class IdempotentStepInterceptor extends RedkitInterceptor<StepDefinition> {

	private final LeaseRenewer renewer = new LeaseRenewer("redkit-step-leases");

	private final Supplier<IdempotentSteps> steps;

	private final Supplier<KeyExpressionEvaluator> keys;

	private final Supplier<StepResults> results;

	/**
	 * Creates an interceptor. Its collaborators are looked up on first use, so that an
	 * advisor (created early) does not create them early.
	 * @param steps claims and records steps
	 * @param keys evaluates the operation expressions
	 * @param results reads results and hashes fingerprints as JSON
	 */
	public IdempotentStepInterceptor(Supplier<IdempotentSteps> steps, Supplier<KeyExpressionEvaluator> keys,
			Supplier<StepResults> results) {
		this.steps = steps;
		this.keys = keys;
		this.results = results;
	}

	@Override
	protected @Nullable StepDefinition read(Method specificMethod, Method method, Class<?> targetClass) {
		return StepDefinition.of(specificMethod);
	}

	@Override
	protected @Nullable Object invoke(MethodInvocation invocation, StepDefinition definition) throws Throwable {
		Method method = invocation.getMethod();
		Object target = invocation.getThis();
		Object[] args = invocation.getArguments();
		String operation = this.keys.get().evaluate(definition.operation(), method, target, args);
		String fingerprintExpression = definition.fingerprint();
		String fingerprint = (fingerprintExpression != null)
				? this.results.get().fingerprint(fingerprintExpression, method, target, args) : null;
		StepClaim claim = this.steps.get()
			.claim(operation, definition.step(), definition.after(), definition.ttl(), definition.lease(), fingerprint);
		switch (claim.outcome()) {
			case DUPLICATE:
				return this.results.get().read(claim.storedResult(), definition.resultType());
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

	private @Nullable Object runClaimed(MethodInvocation invocation, StepClaim claim) throws Throwable {
		IdempotentSteps steps = this.steps.get();
		// a lost claim needs no action here: completing it reports the loss
		LeaseRenewer.Renewal renewal = this.renewer.start(claim.lease(),
				() -> CompletableFuture.completedFuture(steps.extend(claim)), () -> {
				});
		Object result;
		try {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			renewal.stop();
			// the step did not happen: let a retry run it
			try {
				steps.abandon(claim);
			}
			catch (RuntimeException abandonFailure) {
				ex.addSuppressed(abandonFailure);
			}
			throw ex;
		}
		renewal.stop();
		steps.complete(claim, result);
		return result;
	}

}
