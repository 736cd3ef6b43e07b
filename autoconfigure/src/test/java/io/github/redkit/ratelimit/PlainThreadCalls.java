package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * A call made on a plain thread of its own, as an application's caller makes it (not on
 * the test's thread, nor on a pool's), and waited for a bounded time: a call that waits
 * for ever (for a pooled connection, for a handshake) fails the test instead of hanging
 * it.
 */
final class PlainThreadCalls {

	private PlainThreadCalls() {
	}

	/**
	 * Makes the call on a new plain thread and waits for it.
	 * @param <T> what the call returns
	 * @param bound how long the call may take
	 * @param call the call
	 * @return what the call returned
	 * @throws RuntimeException what the call threw
	 * @throws AssertionError when the call still runs after the bound
	 */
	static <T> T within(Duration bound, Supplier<T> call) {
		CompletableFuture<T> result = new CompletableFuture<>();
		new Thread(() -> {
			try {
				result.complete(call.get());
			}
			catch (Throwable ex) {
				result.completeExceptionally(ex);
			}
		}, "plain-caller").start();
		try {
			return result.get(bound.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			throw new AssertionError("The call still waits after " + bound.toMillis() + " ms", ex);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException failure) {
				throw failure;
			}
			throw new AssertionError(ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AssertionError(ex);
		}
	}

}
