package io.github.redkit.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * Where every capability observes its decisions (spans, when tracing is on): one seam,
 * like {@link RedkitMetrics}, so that a capability never depends on Micrometer itself.
 * The Micrometer implementation is {@code MicrometerRedkitObservations}; an application
 * replaces it with a bean of this type. Names must stay low-cardinality: a limit, lock or
 * queue name, never a key or a payload. A capability observes a call with
 * {@link #observe} or {@link #observeAsync}, naming its outcomes with
 * {@link RedkitOutcomes}.
 */
public interface RedkitObservations {

	/** Observes nothing: for applications without Micrometer, and for tests. */
	RedkitObservations NONE = (kind, name) -> RedkitObservation.NONE;

	/**
	 * Starts observing a decision and puts it in scope.
	 * @param kind what is decided
	 * @param name the limit, lock, step or channel name (low-cardinality)
	 * @return the started observation, to close once decided
	 */
	RedkitObservation start(RedkitObservationKind kind, String name);

	/**
	 * Starts observing something that outlives the current call (a held lock), without
	 * putting it in scope: it may be closed on another thread.
	 * @param kind what is observed
	 * @param name the lock name (low-cardinality)
	 * @return the started observation, to close when it ends
	 */
	default RedkitObservation startUnscoped(RedkitObservationKind kind, String name) {
		return RedkitObservation.NONE;
	}

	/**
	 * Starts observing, in scope, with a context that the capability makes: a context of
	 * Micrometer's, such as a message's sender or receiver context whose carrier takes or
	 * gives the trace. The context is made only when something observes, so that
	 * Micrometer is needed only then.
	 * @param context makes the context, an {@code Observation.Context}
	 * @return the started observation, to close once done
	 */
	default RedkitObservation start(Supplier<? extends RedkitObservationContext> context) {
		return RedkitObservation.NONE;
	}

	/**
	 * Observes a call, in scope: its outcome once it returns, or its failure.
	 * @param <T> the result type
	 * @param <E> what the call may throw
	 * @param kind what is observed
	 * @param name the limit, lock, step or channel name (low-cardinality)
	 * @param call the call
	 * @param outcomes how a result or a failure is named
	 * @return what the call returned
	 * @throws E when the call fails
	 */
	default <T, E extends Throwable> T observe(RedkitObservationKind kind, String name, Call<T, E> call,
			RedkitOutcomes<? super T> outcomes) throws E {
		return observe(start(kind, name), call, outcomes);
	}

	/**
	 * Observes a call, in scope, with a context that the capability makes (see
	 * {@link #start(Supplier)}).
	 * @param <T> the result type
	 * @param <E> what the call may throw
	 * @param context makes the context
	 * @param call the call
	 * @param outcomes how a result or a failure is named
	 * @return what the call returned
	 * @throws E when the call fails
	 */
	default <T, E extends Throwable> T observe(Supplier<? extends RedkitObservationContext> context, Call<T, E> call,
			RedkitOutcomes<? super T> outcomes) throws E {
		return observe(start(context), call, outcomes);
	}

	/**
	 * Observes an asynchronous call until it completes, without putting it in scope (it
	 * completes on another thread). A call that throws instead of answering is observed
	 * as a failure and answered by a failed future.
	 * @param <T> the result type
	 * @param kind what is observed
	 * @param name the limit, lock, step or channel name (low-cardinality)
	 * @param call the call
	 * @param outcomes how a result or a failure is named
	 * @return the call's answer, completed once the observation is closed
	 */
	default <T> CompletableFuture<T> observeAsync(RedkitObservationKind kind, String name,
			Supplier<CompletableFuture<T>> call, RedkitOutcomes<? super T> outcomes) {
		return observeAsync(startUnscoped(kind, name), call, outcomes);
	}

	private static <T> CompletableFuture<T> observeAsync(RedkitObservation observation,
			Supplier<CompletableFuture<T>> call, RedkitOutcomes<? super T> outcomes) {
		CompletableFuture<T> answer;
		try {
			answer = call.get();
		}
		catch (RuntimeException ex) {
			answer = CompletableFuture.failedFuture(ex);
		}
		return answer.whenComplete((result, ex) -> {
			if (ex == null) {
				outcomes.succeeded(observation, result);
			}
			else {
				outcomes.failed(observation,
						(ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex);
			}
			observation.close();
		});
	}

	private static <T, E extends Throwable> T observe(RedkitObservation observation, Call<T, E> call,
			RedkitOutcomes<? super T> outcomes) throws E {
		try (observation) {
			try {
				T result = call.call();
				outcomes.succeeded(observation, result);
				return result;
			}
			catch (Throwable ex) {
				outcomes.failed(observation, ex);
				throw ex;
			}
		}
	}

	/**
	 * An observed call: what it throws, checked or not, is observed and thrown again.
	 *
	 * @param <T> the result type
	 * @param <E> what it may throw
	 */
	@FunctionalInterface
	interface Call<T, E extends Throwable> {

		/**
		 * Makes the call.
		 * @return the result
		 * @throws E when it fails
		 */
		T call() throws E;

	}

}
