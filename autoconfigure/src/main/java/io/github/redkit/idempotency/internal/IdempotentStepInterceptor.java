package io.github.redkit.idempotency.internal;

import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.github.redkit.core.internal.KeyExpressionEvaluator;
import io.github.redkit.core.internal.LeaseRenewer;
import io.github.redkit.core.internal.ReactiveCall;
import io.github.redkit.core.internal.RedkitInterceptor;
import io.github.redkit.idempotency.IdempotentStep;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.idempotency.StepClaim;
import io.github.redkit.idempotency.StepClaimLostException;
import io.github.redkit.idempotency.StepException;
import io.github.redkit.idempotency.StepInProgressException;
import io.github.redkit.idempotency.StepOutOfOrderException;
import io.github.redkit.idempotency.StepOutcome;
import io.github.redkit.idempotency.StepResultTooLargeException;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.util.Assert;

/**
 * Runs {@link IdempotentStep} methods: claims the step (one script call), then runs the
 * method with its lease renewed and records its result, returns the recorded result of a
 * duplicate, or throws for a step out of order or in progress. A claim lost while the
 * method ran (its lease could not be renewed and another delivery took the step over)
 * records nothing and throws {@link StepClaimLostException} after the method returned.
 * <p>
 * A method returning a {@code Mono}, a {@code Flux} or a {@code CompletableFuture} is
 * decided on subscription, without blocking: a done step replays its recorded result (a
 * {@code Flux} its recorded elements, in order); a claimed one runs, with its lease
 * renewed, and its result (a {@code Flux}'s elements collected, up to the interceptor's
 * {@code maxFluxElements}) is recorded before it is emitted; an error, too many elements
 * or a cancellation before recording abandon the step. Refusals are the same exceptions,
 * as errors.
 * <p>
 * The thread that renews the leases ends with {@link #destroy()} (its advisor's, when the
 * application context closes): the leases of steps still running are no longer renewed,
 * and a step claimed after it is given back and refused with an
 * {@link IllegalStateException}, without running.
 */
public class IdempotentStepInterceptor extends RedkitInterceptor<StepDefinition> implements DisposableBean {

	/**
	 * How many elements a {@code Flux} step records by default.
	 */
	public static final int DEFAULT_MAX_FLUX_ELEMENTS = 1000;

	private final LeaseRenewer renewer = new LeaseRenewer("redkit-step-leases");

	private final Supplier<IdempotentSteps> steps;

	private final Supplier<KeyExpressionEvaluator> keys;

	private final Supplier<StepResults> results;

	private final int maxFluxElements;

	/**
	 * Creates an interceptor. Its collaborators are looked up on first use, so that an
	 * advisor (created early) does not create them early.
	 * @param steps claims and records steps
	 * @param keys evaluates the operation expressions
	 * @param results reads results and hashes fingerprints as JSON
	 * @param maxFluxElements how many elements a step on a {@code Flux} records at most
	 * (at least 1, {@link #DEFAULT_MAX_FLUX_ELEMENTS} by default); beyond it the step is
	 * abandoned and the {@code Flux} fails with {@link StepResultTooLargeException}
	 */
	public IdempotentStepInterceptor(Supplier<IdempotentSteps> steps, Supplier<KeyExpressionEvaluator> keys,
			Supplier<StepResults> results, int maxFluxElements) {
		Assert.isTrue(maxFluxElements >= 1, "maxFluxElements must be at least 1");
		this.steps = steps;
		this.keys = keys;
		this.results = results;
		this.maxFluxElements = maxFluxElements;
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
		ReactiveCall reactive = ReactiveCall.of(invocation);
		if (reactive != null) {
			return reactive.adapt(reactiveStep(reactive, definition, operation, fingerprint));
		}
		StepClaim claim = this.steps.get()
			.claim(operation, definition.step(), definition.after(), definition.ttl(), definition.lease(), fingerprint);
		switch (claim.outcome()) {
			case DUPLICATE:
				return this.results.get().read(claim.storedResult(), definition.resultType());
			case OUT_OF_ORDER:
			case IN_PROGRESS:
				throw refusal(claim, definition);
			default:
				return runClaimed(invocation, claim);
		}
	}

	private static StepException refusal(StepClaim claim, StepDefinition definition) {
		if (claim.outcome() == StepOutcome.IN_PROGRESS) {
			return new StepInProgressException(claim.operation(), definition.step(), claim.inProgressSteps());
		}
		Set<String> recorded = new LinkedHashSet<>(claim.doneSteps());
		recorded.addAll(claim.inProgressSteps());
		return new StepOutOfOrderException(claim.operation(), definition.step(), definition.after(), recorded);
	}

	private @Nullable Object runClaimed(MethodInvocation invocation, StepClaim claim) throws Throwable {
		IdempotentSteps steps = this.steps.get();
		LeaseRenewer.Renewal renewal;
		try {
			renewal = renew(claim, steps);
		}
		catch (RejectedExecutionException ex) {
			IllegalStateException refused = stopping(claim, ex);
			try {
				steps.abandon(claim);
			}
			catch (RuntimeException abandonFailure) {
				refused.addSuppressed(abandonFailure);
			}
			throw refused;
		}
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

	/**
	 * A reactive method's step, decided on each subscription: claimed without blocking,
	 * then replayed, refused, or run.
	 */
	private Flux<Object> reactiveStep(ReactiveCall call, StepDefinition definition, String operation,
			@Nullable String fingerprint) {
		IdempotentSteps steps = this.steps.get();
		return Flux.defer(() -> {
			CompletableFuture<StepClaim> claiming = steps.claimAsync(operation, definition.step(), definition.after(),
					definition.ttl(), definition.lease(), fingerprint);
			AtomicBoolean decided = new AtomicBoolean();
			return Mono.fromFuture(claiming, true).doOnCancel(() -> {
				// cancelled while claiming: a claim that lands anyway is given back
				if (decided.compareAndSet(false, true)) {
					claiming.thenAccept((claim) -> {
						if (claim.outcome() == StepOutcome.CLAIMED) {
							steps.abandonAsync(claim);
						}
					});
				}
			}).flatMapMany((claim) -> {
				if (!decided.compareAndSet(false, true)) {
					return Flux.empty();
				}
				return switch (claim.outcome()) {
					case DUPLICATE -> replay(claim, definition, call.multiValue());
					case OUT_OF_ORDER, IN_PROGRESS -> Flux.error(refusal(claim, definition));
					case CLAIMED -> runClaimed(call, claim, steps);
				};
			});
		});
	}

	private Flux<Object> replay(StepClaim claim, StepDefinition definition, boolean many) {
		return Flux.defer(() -> {
			Object value = this.results.get().read(claim.storedResult(), definition.resultType());
			if (value == null) {
				return Flux.empty();
			}
			return many ? Flux.fromIterable((Iterable<?>) value) : Flux.just(value);
		});
	}

	/**
	 * Runs a claimed reactive step: its values are collected (a {@code Flux}'s up to the
	 * limit), recorded, then emitted, so that a subscriber sees only recorded results, as
	 * a blocking caller does. A failure, too many elements or a cancellation before the
	 * result is recorded abandon the step, so that a retry runs it.
	 */
	private Flux<Object> runClaimed(ReactiveCall call, StepClaim claim, IdempotentSteps steps) {
		boolean many = call.multiValue();
		int limit = this.maxFluxElements;
		return Flux.defer(() -> {
			LeaseRenewer.Renewal renewal;
			try {
				renewal = renew(claim, steps);
			}
			catch (RejectedExecutionException ex) {
				return IdempotentStepInterceptor.<Object>abandoned(steps, claim, stopping(claim, ex)).flux();
			}
			AtomicBoolean settled = new AtomicBoolean();
			Flux<Object> values = call.proceed();
			Mono<List<Object>> produced = (many ? values.take(limit + 1L) : values).collectList().flatMap((list) -> {
				if (many && list.size() > limit) {
					return Mono.error(new StepResultTooLargeException(claim.operation(), claim.step(), limit));
				}
				return Mono.just(list);
			})
				.onErrorResume(
						(ex) -> settled.compareAndSet(false, true) ? abandoned(steps, claim, ex) : Mono.error(ex))
				.doOnCancel(() -> {
					// the subscriber gave up before the result was recorded: nobody has
					// it,
					// so a retry must be able to run the step now rather than after the
					// lease
					if (settled.compareAndSet(false, true)) {
						steps.abandonAsync(claim);
					}
				});
			return produced.flatMapMany((list) -> {
				if (!settled.compareAndSet(false, true)) {
					return Flux.empty();
				}
				Object result = many ? list : (list.isEmpty() ? null : list.get(0));
				return Mono.fromFuture(() -> steps.completeAsync(claim, result)).thenMany(Flux.fromIterable(list));
			}).doFinally((signal) -> renewal.stop());
		});
	}

	private LeaseRenewer.Renewal renew(StepClaim claim, IdempotentSteps steps) {
		// a lost claim needs no action here: completing it reports the loss
		return this.renewer.start(claim.lease(), () -> steps.extendAsync(claim), () -> {
		});
	}

	// the renewer is shut down (the context is closing with calls in flight): a lease
	// nobody renews is given back, and the step is not run
	private static IllegalStateException stopping(StepClaim claim, RejectedExecutionException ex) {
		return new IllegalStateException(
				"Step '" + claim.step() + "' of '" + claim.operation()
						+ "': idempotent steps are stopping and can no longer renew a lease; the claim was given back",
				ex);
	}

	/**
	 * Stops renewing the leases of the steps still running, and ends the renewer's
	 * thread.
	 */
	@Override
	public void destroy() {
		this.renewer.shutdown();
	}

	private static <T> Mono<T> abandoned(IdempotentSteps steps, StepClaim claim, Throwable ex) {
		// the step did not happen: let a retry run it
		return Mono.fromFuture(() -> steps.abandonAsync(claim)).onErrorResume((abandonFailure) -> {
			ex.addSuppressed(abandonFailure);
			return Mono.empty();
		}).then(Mono.error(ex));
	}

}
