package io.github.redkit.core.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import org.junit.jupiter.api.Test;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The {@code EVAL} sent after a {@code NOSCRIPT} completes its caller's future whatever
 * sending it throws: a caller that set no timeout of its own would otherwise wait for
 * ever; and it is not sent for a caller that gave up before the {@code NOSCRIPT} came.
 */
class ScriptCallsReloadTests {

	private static final LuaScript<Long> TIME_AND_KEYS = LuaScript.load("test_time_and_keys", Long.class);

	private static final LuaScript<Long> GIVEN_UP = TIME_AND_KEYS.givenUpWithItsCaller();

	@Test
	@SuppressWarnings("unchecked")
	void anErrorThrownSendingTheReloadFailsTheCallersFuture() {
		RedisServer redis = RedisServers.standalone();
		LettuceConnectionFactory factory = redis.createConnectionFactory();
		try (RedisConnection connection = factory.getConnection()) {
			Object commands = connection.getNativeConnection();
			// EVALSHA reaches Redis, which forgot the script; sending EVAL throws an
			// Error
			RedisScriptingAsyncCommands<byte[], byte[]> refusingEval = (RedisScriptingAsyncCommands<byte[], byte[]>) Proxy
				.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { RedisScriptingAsyncCommands.class },
						(proxy, method, args) -> {
							if (method.getName().equals("eval")) {
								throw new AssertionError("EVAL refused by the test");
							}
							try {
								return method.invoke(commands, args);
							}
							catch (InvocationTargetException ex) {
								throw ex.getCause();
							}
						});
			redis.callOnEveryNode("SCRIPT", "FLUSH");
			CompletableFuture<Long> answer = ScriptCalls.execute(refusingEval, null, TIME_AND_KEYS,
					ScriptConnection.encode(List.of("redkit-test:{reload-error}")),
					ScriptConnection.encode(List.of("v")));
			assertThat(answer).failsWithin(Duration.ofSeconds(5))
				.withThrowableThat()
				.havingRootCause()
				.withMessage("EVAL refused by the test");
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void aCallerThatGaveUpBeforeItsNoscriptAnswerGetsNoEvalSentForIt(@PrivateRedis RedisServer redis) {
		assertThat(afterACallerGaveUpBeforeItsNoscriptAnswer(redis, GIVEN_UP)).as("the call given up is not applied")
			.isEqualTo("before");
	}

	/**
	 * A release that timed out across a failover (the new master has no script cache) is
	 * still applied once Redis answers: only a script given up with its caller (a take)
	 * is not sent again.
	 */
	@Test
	void aScriptNotGivenUpWithItsCallerIsStillAppliedAfterItsNoscriptAnswer(@PrivateRedis RedisServer redis) {
		assertThat(afterACallerGaveUpBeforeItsNoscriptAnswer(redis, TIME_AND_KEYS))
			.as("the call whose caller timed out is applied")
			.isEqualTo("after giving up");
	}

	private static String afterACallerGaveUpBeforeItsNoscriptAnswer(RedisServer redis, LuaScript<Long> script) {
		LettuceConnectionFactory factory = redis.createConnectionFactory();
		try {
			RedisScriptRunner runner = new RedisScriptRunner(factory);
			String key = "redkit-test:{gave-up}";
			// bounds far above any answer of a loaded machine, but the one given up
			runner.execute(TIME_AND_KEYS, Duration.ofSeconds(30), List.of(key), "before");
			// EVALSHA reaches a frozen Redis that forgot the script: its NOSCRIPT answer
			// comes after the caller's timeout
			redis.callOnEveryNode("SCRIPT", "FLUSH");
			redis.pause();
			try {
				assertThatExceptionOfType(QueryTimeoutException.class)
					.isThrownBy(() -> runner.execute(script, Duration.ofMillis(200), List.of(key), "after giving up"));
			}
			finally {
				redis.resume();
			}
			// a later call on the same connection: an EVAL sent for the call given up
			// would
			// have been sent on its NOSCRIPT answer, before this one's
			runner.execute(TIME_AND_KEYS, Duration.ofSeconds(30), List.of("redkit-test:{gave-up}:later"), "later");
			return runner.template().opsForValue().get(key);
		}
		finally {
			redis.resume();
			factory.destroy();
		}
	}

}
