package io.github.redkit.core;

import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * How an observed call went, as the low-cardinality outcome its observation is tagged
 * with: one value per result, and one per failure, {@code failed} unless told otherwise.
 * A capability declares one per kind of call, shared by its blocking and asynchronous
 * faces.
 *
 * @param <T> the call's result type
 */
public final class RedkitOutcomes<T> {

	private static final String FAILED = "failed";

	private final Function<? super T, String> result;

	private final Function<Throwable, @Nullable String> failure;

	private RedkitOutcomes(Function<? super T, String> result, Function<Throwable, @Nullable String> failure) {
		this.result = result;
		this.failure = failure;
	}

	/**
	 * Outcomes named by the result, {@code failed} for any failure.
	 * @param <T> the result type
	 * @param result the outcome of a result, such as {@code allowed} or {@code denied}
	 * @return the outcomes
	 */
	public static <T> RedkitOutcomes<T> of(Function<? super T, String> result) {
		return new RedkitOutcomes<>(result, (ex) -> FAILED);
	}

	/**
	 * The same outcomes of results, with the failure's outcome named by the failure.
	 * @param failure the outcome of a failure (unwrapped from a
	 * {@link java.util.concurrent.CompletionException}), or {@code null} to leave it
	 * unset
	 * @return the outcomes
	 */
	public RedkitOutcomes<T> onFailure(Function<Throwable, @Nullable String> failure) {
		return new RedkitOutcomes<>(this.result, failure);
	}

	void succeeded(RedkitObservation observation, T result) {
		observation.outcome(this.result.apply(result));
	}

	void failed(RedkitObservation observation, Throwable failure) {
		String outcome = this.failure.apply(failure);
		if (outcome != null) {
			observation.outcome(outcome);
		}
		observation.error(failure);
	}

}
