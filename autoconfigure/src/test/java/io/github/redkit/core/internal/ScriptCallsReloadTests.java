package io.github.redkit.core.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code EVAL} sent after a {@code NOSCRIPT} completes its caller's future whatever
 * sending it throws: a caller that set no timeout of its own would otherwise wait for
 * ever.
 */
class ScriptCallsReloadTests {

	private static final LuaScript<Long> TIME_AND_KEYS = LuaScript.load("test_time_and_keys", Long.class);

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
			CompletableFuture<Long> answer = ScriptCalls.execute(refusingEval, TIME_AND_KEYS,
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

}
