package io.github.redkit.ratelimit.internal;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.github.redkit.core.internal.KeyExpressionEvaluator;
import io.github.redkit.core.internal.ReactiveCall;
import io.github.redkit.core.internal.RedkitInterceptor;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitDecisionListener;
import io.github.redkit.ratelimit.RateLimitExceededException;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimited;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.ratelimit.ReactiveRateLimitDecisionListener;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import reactor.util.context.ContextView;

/**
 * Applies {@link RateLimited}: evaluates the key expressions, asks the
 * {@link RateLimiter} once and either proceeds or throws
 * {@link RateLimitExceededException}. The decision carries its policy, so answering with
 * headers needs no second question.
 */
public class RateLimitedInterceptor extends RedkitInterceptor<RateLimitedOperation> {

	private final Supplier<RateLimiter> rateLimiter;

	private final Supplier<KeyExpressionEvaluator> evaluator;

	private final Supplier<List<RateLimitDecisionListener>> listeners;

	/**
	 * Creates an interceptor; its collaborators are looked up on first use so that
	 * creating the advisor does not create Redis beans early.
	 * @param rateLimiter the rate limiter
	 * @param evaluator evaluates key expressions
	 * @param listeners told about allowed calls (e.g. to write response headers)
	 */
	public RateLimitedInterceptor(Supplier<RateLimiter> rateLimiter, Supplier<KeyExpressionEvaluator> evaluator,
			Supplier<List<RateLimitDecisionListener>> listeners) {
		this.rateLimiter = rateLimiter;
		this.evaluator = evaluator;
		this.listeners = listeners;
	}

	@Override
	protected @Nullable RateLimitedOperation read(Method specificMethod, Method method, Class<?> targetClass) {
		return RateLimitedOperation.of(specificMethod, method, targetClass);
	}

	@Override
	protected @Nullable Object invoke(MethodInvocation invocation, RateLimitedOperation operation) throws Throwable {
		List<String> keys = keys(operation, invocation);
		RateLimiter limiter = this.rateLimiter.get();
		// whether the method is reactive was read with its annotation
		ReactiveCall reactive = operation.reactive() ? ReactiveCall.of(invocation) : null;
		if (reactive != null) {
			return reactive.proceedAfter(() -> decideAsync(limiter, operation, keys),
					(decision, context) -> admit(operation, keys, decision, context));
		}
		RateLimitPolicy inline = operation.inlinePolicy();
		RateLimitDecision decision = (inline != null)
				? limiter.tryAcquire(operation.limitName(), operation.limitId(), inline, keys, operation.cost())
				: limiter.tryAcquire(operation.limitName(), keys, operation.cost());
		admit(operation, keys, decision, null);
		return invocation.proceed();
	}

	private static CompletableFuture<RateLimitDecision> decideAsync(RateLimiter limiter, RateLimitedOperation operation,
			List<String> keys) {
		RateLimitPolicy inline = operation.inlinePolicy();
		return (inline != null)
				? limiter.tryAcquireAsync(operation.limitName(), operation.limitId(), inline, keys, operation.cost())
				: limiter.tryAcquireAsync(operation.limitName(), keys, operation.cost());
	}

	/**
	 * Throws when the call was refused, tells the listeners when it was allowed; a
	 * reactive call passes its subscriber's context (typed loosely so that this class
	 * loads without Reactor).
	 */
	private void admit(RateLimitedOperation operation, List<String> keys, RateLimitDecision decision,
			@Nullable Object context) {
		// a limit without key expressions is one partition shared by every caller
		List<String> partition = (operation.keyExpressions().length > 0) ? keys : List.of();
		if (!decision.allowed()) {
			throw new RateLimitExceededException(operation.limitName(), decision.policy(), decision, partition);
		}
		for (RateLimitDecisionListener listener : this.listeners.get()) {
			if (context != null && listener instanceof ReactiveRateLimitDecisionListener reactive) {
				reactive.allowed(operation.limitName(), decision.policy(), decision, partition, (ContextView) context);
			}
			else {
				listener.allowed(operation.limitName(), decision.policy(), decision, partition);
			}
		}
	}

	private List<String> keys(RateLimitedOperation operation, MethodInvocation invocation) {
		String[] expressions = operation.keyExpressions();
		if (expressions.length == 0) {
			return List.of(RateLimitedOperation.SHARED_KEY);
		}
		KeyExpressionEvaluator evaluator = this.evaluator.get();
		if (expressions.length == 1) {
			return List.of(evaluator.evaluate(expressions[0], invocation.getMethod(), invocation.getThis(),
					invocation.getArguments()));
		}
		List<String> keys = new ArrayList<>(expressions.length);
		for (String expression : expressions) {
			keys.add(evaluator.evaluate(expression, invocation.getMethod(), invocation.getThis(),
					invocation.getArguments()));
		}
		return keys;
	}

}
