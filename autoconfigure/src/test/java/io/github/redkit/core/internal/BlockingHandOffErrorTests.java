package io.github.redkit.core.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A send that fails with an {@link Error} on a hand-off thread (a borrow or a connect
 * that ran out of memory, a linkage error) still answers the caller: a caller without a
 * timeout of its own would otherwise wait forever.
 */
class BlockingHandOffErrorTests {

	@Test
	void aSendFailingWithAnErrorIsAFailedAnswer() {
		ExecutorService threads = BlockingHandOff.executor(1);
		try {
			BlockingHandOff handOff = new BlockingHandOff(1, threads);
			CompletableFuture<Long> answer = handOff.handOff("a script", false, (caller) -> {
				throw new AssertionError("a send that failed with an Error");
			});
			assertThat(answer).failsWithin(Duration.ofSeconds(5))
				.withThrowableOfType(Exception.class)
				.withStackTraceContaining("a send that failed with an Error");
		}
		finally {
			threads.shutdownNow();
		}
	}

}
