package io.github.redkit.core.internal;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A script the hand-off cannot take (its executor shut down or refusing) is answered with
 * a failed future, as every other failure to send is: callers that made a slot or a
 * record before sending complete it from that answer, and never see a synchronous throw
 * instead.
 */
class ScriptHandOffRejectedTests {

	private static final LuaScript<Long> RENEW = LuaScript.load("test_renew_if_equal", Long.class);

	@Test
	void aScriptTheHandOffRefusesIsAFailedAnswer() {
		ExecutorService stopped = Executors.newSingleThreadExecutor();
		stopped.shutdown();
		// not connected yet: the script is handed off
		RedisScriptRunner runner = new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory(), 1, stopped);
		String key = "hand-off-" + UUID.randomUUID();
		CompletableFuture<Long> answer = runner.executeAsync(RENEW, List.of(key), "token", "1000");
		assertThat(answer).failsWithin(Duration.ofSeconds(5))
			.withThrowableOfType(Exception.class)
			.withCauseInstanceOf(DataAccessException.class)
			.withMessageContaining("test_renew_if_equal");
		assertThat(runner.template().hasKey(key)).isFalse();
	}

}
