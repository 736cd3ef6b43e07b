package io.github.redkit.ratelimit;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redkit.core.KeyExpressionEvaluator;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.MethodClassKey;

/**
 * Applies {@link RateLimited}: evaluates the key expressions, asks the
 * {@link RateLimiter} and either proceeds or throws {@link RateLimitExceededException}.
 */
public class RateLimitedInterceptor implements MethodInterceptor {

	private static final RateLimitedOperation NOT_LIMITED = new RateLimitedOperation("", "", null, new String[0], 1);

	private final Map<MethodClassKey, RateLimitedOperation> operations = new ConcurrentHashMap<>(64);

	private final ObjectProvider<RateLimiter> rateLimiter;

	private final ObjectProvider<KeyExpressionEvaluator> evaluator;

	private final ObjectProvider<RateLimitDecisionListener> listeners;

	private volatile Collaborators collaborators;

	/**
	 * Creates an interceptor; its collaborators are looked up on first use so that
	 * creating the advisor does not create Redis beans early.
	 * @param rateLimiter the rate limiter
	 * @param evaluator evaluates key expressions
	 * @param listeners told about allowed calls (e.g. to write response headers)
	 */
	public RateLimitedInterceptor(ObjectProvider<RateLimiter> rateLimiter,
			ObjectProvider<KeyExpressionEvaluator> evaluator, ObjectProvider<RateLimitDecisionListener> listeners) {
		this.rateLimiter = rateLimiter;
		this.evaluator = evaluator;
		this.listeners = listeners;
	}

	@Override
	public Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target)
				: invocation.getMethod().getDeclaringClass();
		RateLimitedOperation operation = operation(invocation.getMethod(), targetClass);
		if (operation == null) {
			return invocation.proceed();
		}
		Collaborators collaborators = collaborators();
		List<String> keys = keys(operation, invocation, collaborators.evaluator());
		RateLimiter limiter = collaborators.rateLimiter();
		RateLimitDecision decision = (operation.inlinePolicy() != null) ? limiter.tryAcquire(operation.limitName(),
				operation.limitId(), operation.inlinePolicy(), keys, operation.cost())
				: limiter.tryAcquire(operation.limitName(), keys, operation.cost());
		RateLimitPolicy policy = Optional.ofNullable(operation.inlinePolicy())
			.or(() -> limiter.policy(operation.limitName()))
			.orElse(null);
		if (!decision.allowed()) {
			throw new RateLimitExceededException(operation.limitName(), policy, decision);
		}
		for (RateLimitDecisionListener listener : collaborators.listeners()) {
			listener.allowed(operation.limitName(), policy, decision);
		}
		return invocation.proceed();
	}

	private Collaborators collaborators() {
		// looked up once: a bean factory lookup on every call costs more than the
		// decision
		Collaborators collaborators = this.collaborators;
		if (collaborators == null) {
			collaborators = new Collaborators(this.rateLimiter.getObject(), this.evaluator.getObject(),
					this.listeners.orderedStream().toList());
			this.collaborators = collaborators;
		}
		return collaborators;
	}

	/**
	 * Resolves (once) the operation of a method, validating its annotation.
	 * @param method the invoked method
	 * @param targetClass the target class
	 * @return the operation, or {@code null} when the method is not rate limited
	 */
	RateLimitedOperation operation(Method method, Class<?> targetClass) {
		RateLimitedOperation operation = this.operations.computeIfAbsent(new MethodClassKey(method, targetClass),
				(key) -> {
					RateLimitedOperation resolved = RateLimitedOperation
						.of(AopUtils.getMostSpecificMethod(method, targetClass), targetClass);
					return (resolved != null) ? resolved : NOT_LIMITED;
				});
		return (operation != NOT_LIMITED) ? operation : null;
	}

	private List<String> keys(RateLimitedOperation operation, MethodInvocation invocation,
			KeyExpressionEvaluator evaluator) {
		String[] expressions = operation.keyExpressions();
		if (expressions.length == 0) {
			return List.of(RateLimitedOperation.SHARED_KEY);
		}
		List<String> keys = new ArrayList<>(expressions.length);
		for (String expression : expressions) {
			keys.add(evaluator.evaluate(expression, invocation.getMethod(), invocation.getThis(),
					invocation.getArguments()));
		}
		return keys;
	}

	private record Collaborators(RateLimiter rateLimiter, KeyExpressionEvaluator evaluator,
			List<RateLimitDecisionListener> listeners) {
	}

}
