package io.github.redkit.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.redkit.core.internal.RedisScriptRunner;
import org.junit.jupiter.api.Test;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link RedisScriptRunner#await} answers what an answer that arrived as its wait ended
 * says, not a timeout: a multi-slot decision settled then took permits that only its
 * caller gives back, and a caller told it timed out would not.
 */
class RedisScriptRunnerAwaitTests {

	@Test
	void anAnswerThatArrivesAsTheWaitEndsIsReturned() {
		assertThat(RedisScriptRunner.await(answeredAsTheWaitEnds("allowed", null), Duration.ofMillis(1), "decision"))
			.isEqualTo("allowed");
	}

	@Test
	void aFailureThatArrivesAsTheWaitEndsIsThrownAsItIs() {
		RedisConnectionFailureException failure = new RedisConnectionFailureException("gone");
		assertThatExceptionOfType(RedisConnectionFailureException.class).isThrownBy(
				() -> RedisScriptRunner.await(answeredAsTheWaitEnds(null, failure), Duration.ofMillis(1), "decision"))
			.isSameAs(failure);
	}

	@Test
	void anAnswerThatNeverArrivesIsCancelledAndTimesOut() {
		CompletableFuture<String> never = new CompletableFuture<>();
		assertThatExceptionOfType(QueryTimeoutException.class)
			.isThrownBy(() -> RedisScriptRunner.await(never, Duration.ofMillis(1), "decision"));
		assertThat(never).isCancelled();
	}

	// completes between the end of the wait and the cancel that follows it
	private static CompletableFuture<String> answeredAsTheWaitEnds(String value, RuntimeException failure) {
		return new CompletableFuture<>() {

			@Override
			public String get(long timeout, TimeUnit unit) throws TimeoutException {
				if (failure != null) {
					completeExceptionally(failure);
				}
				else {
					complete(value);
				}
				throw new TimeoutException();
			}

		};
	}

}
