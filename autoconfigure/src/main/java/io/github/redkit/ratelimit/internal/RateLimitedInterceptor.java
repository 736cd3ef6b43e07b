package io.github.redkit.ratelimit.internal;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.github.redkit.core.internal.KeyExpressionEvaluator;
import io.github.redkit.core.internal.ReactiveCall;
import io.github.redkit.core.internal.RedkitInterceptor;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitDecisionListener;
import io.github.redkit.ratelimit.RateLimitExceededException;
import io.github.redkit.ratelimit.RateLimitPlanResolver;
import io.github.redkit.ratelimit.RateLimitReservation;
import io.github.redkit.ratelimit.RateLimited;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.ratelimit.ReactiveRateLimitDecisionListener;
import io.github.redkit.ratelimit.internal.RateLimitedOperation.After;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.util.context.ContextView;

/**
 * Applies {@link RateLimited}: evaluates the key expressions, asks the
 * {@link RateLimiter} once and either proceeds or throws
 * {@link RateLimitExceededException}. The decision carries its policy, so answering with
 * headers needs no second question.
 */
public class RateLimitedInterceptor extends RedkitInterceptor<RateLimitedOperation> {

	private static final Log logger = LogFactory.getLog(RateLimitedInterceptor.class);

	private final Supplier<RateLimiter> rateLimiter;

	private final Supplier<KeyExpressionEvaluator> evaluator;

	private final Supplier<List<RateLimitDecisionListener>> listeners;

	private final Supplier<RateLimitPlanResolver> plans;

	/**
	 * Creates an interceptor; its collaborators are looked up on first use so that
	 * creating the advisor does not create Redis beans early.
	 * @param rateLimiter the rate limiter
	 * @param evaluator evaluates key expressions
	 * @param listeners told about allowed calls (e.g. to write response headers)
	 * @param plans turns a call's plan into its limit
	 */
	public RateLimitedInterceptor(Supplier<RateLimiter> rateLimiter, Supplier<KeyExpressionEvaluator> evaluator,
			Supplier<List<RateLimitDecisionListener>> listeners, Supplier<RateLimitPlanResolver> plans) {
		this.rateLimiter = rateLimiter;
		this.evaluator = evaluator;
		this.listeners = listeners;
		this.plans = plans;
	}

	@Override
	protected @Nullable RateLimitedOperation read(Method specificMethod, Method method, Class<?> targetClass) {
		return RateLimitedOperation.of(specificMethod, method, targetClass);
	}

	@Override
	protected @Nullable Object invoke(MethodInvocation invocation, RateLimitedOperation declared) throws Throwable {
		RateLimitedOperation operation = declared.planned() ? declared.withLimit(plan(declared, invocation)) : declared;
		List<String> keys = keys(operation, invocation);
		// read before the decision: what follows it reads only the decision
		String limitName = operation.limit().name();
		// a limit without key expressions is one partition shared by every caller
		List<String> partition = (operation.keyExpressions().length > 0) ? keys : List.of();
		RateLimiter limiter = this.rateLimiter.get();
		// whether the method is reactive was read with its annotation
		ReactiveCall reactive = operation.reactive() ? ReactiveCall.of(invocation) : null;
		After after = operation.after();
		if (after != null) {
			return (reactive != null) ? reserveReactive(reactive, limiter, operation, keys, partition, after)
					: reserve(invocation, limiter, operation, keys, partition, after);
		}
		if (reactive != null) {
			return reactive.proceedAfter(() -> operation.limit().tryAcquireAsync(limiter, keys, operation.cost()),
					(decision, context) -> admit(limitName, partition, decision, context));
		}
		admit(limitName, partition, operation.limit().tryAcquire(limiter, keys, operation.cost()), null);
		return invocation.proceed();
	}

	/**
	 * Takes the cost as an estimate, runs the call, and settles it with what its end says
	 * it used; the settlement is sent, not awaited.
	 */
	private @Nullable Object reserve(MethodInvocation invocation, RateLimiter limiter, RateLimitedOperation operation,
			List<String> keys, List<String> partition, After after) throws Throwable {
		RateLimitReservation reservation = operation.limit().reserve(limiter, keys, operation.cost());
		admit(operation.limit().name(), partition, reservation.decision(), null);
		Object result;
		try {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			settle(invocation, operation, after, reservation, null, ex);
			throw ex;
		}
		settle(invocation, operation, after, reservation, result, null);
		return result;
	}

	private Object reserveReactive(ReactiveCall reactive, RateLimiter limiter, RateLimitedOperation operation,
			List<String> keys, List<String> partition, After after) {
		MethodInvocation invocation = reactive.invocation();
		return reactive.proceedAfter(() -> operation.limit().reserveAsync(limiter, keys, operation.cost()),
				(reservation, context) -> admit(operation.limit().name(), partition, reservation.decision(), context),
				(reservation, values) -> {
					// a Mono is cut after its value, a Flux settles on its last element;
					// a cancelled call keeps its estimate
					boolean single = !reactive.multiValue();
					AtomicReference<@Nullable Object> last = new AtomicReference<>();
					AtomicBoolean ended = new AtomicBoolean();
					return values.doOnNext((value) -> {
						last.set(value);
						if (single && ended.compareAndSet(false, true)) {
							settle(invocation, operation, after, reservation, value, null);
						}
					}).doOnComplete(() -> {
						if (ended.compareAndSet(false, true)) {
							settle(invocation, operation, after, reservation, last.get(), null);
						}
					}).doOnError((ex) -> {
						if (ended.compareAndSet(false, true)) {
							settle(invocation, operation, after, reservation, null, ex);
						}
					});
				});
	}

	/**
	 * Settles an allowed call with what its end says: nothing when it does not count, the
	 * settle expression's amount when it returned, else its estimate. An expression that
	 * fails keeps the estimate: the call has run, and its result must not be lost.
	 */
	private void settle(MethodInvocation invocation, RateLimitedOperation operation, After after,
			RateLimitReservation reservation, @Nullable Object result, @Nullable Throwable exception) {
		long actual = reservation.estimate();
		try {
			if (!after.countWhen().isEmpty() && !Boolean.TRUE
				.equals(evaluate(invocation, after.countWhen(), result, exception, Boolean.class))) {
				actual = 0;
			}
			else if (!after.settle().isEmpty() && exception == null) {
				Number used = evaluate(invocation, after.settle(), result, null, Number.class);
				if (used == null) {
					logger.warn("@RateLimited '" + operation.limitName() + "': settle expression '" + after.settle()
							+ "' yielded nothing; the call keeps its estimate of " + actual);
				}
				else {
					actual = amount(operation, after, used, actual);
				}
			}
		}
		catch (RuntimeException ex) {
			logger.warn("@RateLimited '" + operation.limitName() + "': the call keeps its estimate of " + actual
					+ " because " + ex.getMessage(), ex);
		}
		if (actual != reservation.estimate()) {
			reservation.settleAsync(actual);
		}
	}

	/**
	 * What a settle expression's number settles the call at: below 0 is 0, above the most
	 * a call may be settled at (infinity too) is that most, with a WARN; not a number
	 * keeps the estimate, with a WARN.
	 */
	private static long amount(RateLimitedOperation operation, After after, Number used, long estimate) {
		double value = used.doubleValue();
		if (Double.isNaN(value)) {
			logger.warn("@RateLimited '" + operation.limitName() + "': settle expression '" + after.settle()
					+ "' yielded NaN; the call keeps its estimate of " + estimate);
			return estimate;
		}
		if (value > RateLimitReservation.MAX_AMOUNT) {
			logger.warn("@RateLimited '" + operation.limitName() + "': settle expression '" + after.settle()
					+ "' yielded " + used + "; the call is settled at the most, " + RateLimitReservation.MAX_AMOUNT);
			return RateLimitReservation.MAX_AMOUNT;
		}
		return Math.max(used.longValue(), 0);
	}

	private <T> @Nullable T evaluate(MethodInvocation invocation, String expression, @Nullable Object result,
			@Nullable Throwable exception, Class<T> type) {
		return this.evaluator.get()
			.evaluateAfter(expression, invocation.getMethod(), invocation.getThis(), invocation.getArguments(), result,
					exception, type);
	}

	/**
	 * Throws when the call was refused, tells the listeners when it was allowed; a
	 * reactive call passes its subscriber's context (typed loosely so that this class
	 * loads without Reactor).
	 */
	private void admit(String limitName, List<String> partition, RateLimitDecision decision, @Nullable Object context) {
		if (!decision.allowed()) {
			throw new RateLimitExceededException(limitName, decision.policy(), decision, partition);
		}
		List<RateLimitDecisionListener> listeners = this.listeners.get();
		// by index: an iterator per call is allocated for nothing
		for (int i = 0; i < listeners.size(); i++) {
			RateLimitDecisionListener listener = listeners.get(i);
			if (context != null && listener instanceof ReactiveRateLimitDecisionListener reactive) {
				reactive.allowed(limitName, decision.policy(), decision, partition, (ContextView) context);
			}
			else {
				listener.allowed(limitName, decision.policy(), decision, partition);
			}
		}
	}

	/** The named limit of a call's plan. */
	private String plan(RateLimitedOperation operation, MethodInvocation invocation) {
		String plan = this.evaluator.get()
			.evaluate(operation.limitName(), invocation.getMethod(), invocation.getThis(), invocation.getArguments());
		String limitName = this.plans.get().limitName(plan);
		if (limitName == null || limitName.isBlank()) {
			throw new IllegalStateException("@RateLimited '" + operation.limitName()
					+ "': the plan resolver gave no limit for plan '" + plan + "'");
		}
		return limitName;
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
