package io.github.redkit.resilience4j;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

/**
 * The one rule of Redkit's Resilience4j adapters for a call Redkit's limiter does not
 * decide: it is refused, as Resilience4j refuses ({@code RequestNotPermitted},
 * {@code BulkheadFullException}), so that the instance's event, meters and fallbacks see
 * it, never failed with an exception of Redkit's that nothing of Resilience4j's matches.
 * Redis that cannot be asked under the failure mode {@code deny} is the limiter's own
 * answer (it logged the failure): noted at debug. Any other failure (the limiter stopped
 * with the application, a defect) is logged at WARN, naming it: once a while, with how
 * many calls were refused since the last warning, so that a defect refusing every call
 * does not flood the log (each is at debug; Resilience4j's events and meters count them
 * all).
 */
final class UndecidedCalls {

	private static final long WARN_INTERVAL_NANOS = Duration.ofSeconds(10).toNanos();

	// when the next WARN may be written (System.nanoTime()), and the refusals not warned
	// of yet
	private final AtomicLong nextWarning = new AtomicLong(System.nanoTime());

	private final AtomicLong unwarned = new AtomicLong();

	private final Log logger;

	private final String instance;

	private final String limitName;

	private final Class<? extends RuntimeException> unavailable;

	/**
	 * Creates the rule of one adapter instance.
	 * @param logger the adapter's
	 * @param instance the instance, as its log lines name it ({@code Bulkhead 'reports'})
	 * @param limitName the Redkit limit behind it
	 * @param unavailable what the limiter throws when Redis cannot be asked and its
	 * failure mode refuses
	 */
	UndecidedCalls(Log logger, String instance, String limitName, Class<? extends RuntimeException> unavailable) {
		this.logger = logger;
		this.instance = instance;
		this.limitName = limitName;
		this.unavailable = unavailable;
	}

	/**
	 * Asks the limiter.
	 * @param <T> its answer's type
	 * @param ask the question
	 * @return the answer, {@code null} when the limiter failed: refused
	 */
	<T> @Nullable T ask(Supplier<T> ask) {
		try {
			return ask.get();
		}
		catch (RuntimeException ex) {
			refused(ex);
			return null;
		}
	}

	/**
	 * Logs why a call is refused.
	 * @param failure how the limiter failed: what it threw, or how its answer failed
	 * ({@link ExecutionException}, {@link CompletionException}: their cause is logged)
	 */
	void refused(Throwable failure) {
		Throwable cause = failure;
		while ((cause instanceof ExecutionException || cause instanceof CompletionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		if (this.unavailable.isInstance(cause)) {
			this.logger.debug(this.instance + ": Redis unavailable, refused", cause);
			return;
		}
		this.logger.debug(this.instance + ": the limiter's failure", cause);
		long refusals = this.unwarned.incrementAndGet();
		long now = System.nanoTime();
		long next = this.nextWarning.get();
		if (now - next >= 0 && this.nextWarning.compareAndSet(next, now + WARN_INTERVAL_NANOS)) {
			this.unwarned.addAndGet(-refusals);
			String count = (refusals > 1) ? refusals + " calls refused since the last warning" : "the call is refused";
			this.logger
				.warn(this.instance + ": limit '" + this.limitName + "' could not decide, " + count + ": " + cause);
		}
	}

}
