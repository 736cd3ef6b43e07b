package io.github.redkit.core.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.Test;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

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
		assertThat(afterACallerGaveUpBeforeItsNoscriptAnswer(redis, redis.createConnectionFactory(), GIVEN_UP))
			.as("the call given up is not applied")
			.isEqualTo("before");
	}

	/**
	 * Without a shared connection each script gets a connection of its own, and its
	 * caller a copy of the answer (the connection goes back once the command completed):
	 * the caller's cancel still gives the script up. The connection closes once its last
	 * command (an {@code EVAL} sent on the {@code NOSCRIPT} answer included) completed.
	 */
	@Test
	void aCallerThatGaveUpOnAnUnsharedConnectionGetsNoEvalSentForIt(@PrivateRedis RedisServer redis) {
		LettuceConnectionFactory unshared = redis.createConnectionFactory();
		unshared.setShareNativeConnection(false);
		assertThat(afterACallerGaveUpBeforeItsNoscriptAnswer(redis, unshared, GIVEN_UP))
			.as("the call given up is not applied")
			.isEqualTo("before");
	}

	/**
	 * From a pool of one dedicated connection, the later call waits for the connection of
	 * the call given up, which goes back once its last command completed.
	 */
	@Test
	void aCallerThatGaveUpOnAPooledConnectionGetsNoEvalSentForIt(@PrivateRedis RedisServer redis) {
		GenericObjectPoolConfig<StatefulConnection<?, ?>> pool = new GenericObjectPoolConfig<>();
		pool.setMaxTotal(1);
		LettuceConnectionFactory pooled = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(RedisServer.HOST, redis.port()),
				LettucePoolingClientConfiguration.builder()
					.poolConfig(pool)
					.commandTimeout(Duration.ofSeconds(5))
					.build());
		pooled.setShareNativeConnection(false);
		pooled.afterPropertiesSet();
		pooled.start();
		assertThat(afterACallerGaveUpBeforeItsNoscriptAnswer(redis, pooled, GIVEN_UP))
			.as("the call given up is not applied")
			.isEqualTo("before");
	}

	/**
	 * A release that timed out across a failover (the new master has no script cache) is
	 * still applied once Redis answers: only a script given up with its caller (a take)
	 * is not sent again.
	 */
	@Test
	void aScriptNotGivenUpWithItsCallerIsStillAppliedAfterItsNoscriptAnswer(@PrivateRedis RedisServer redis) {
		assertThat(afterACallerGaveUpBeforeItsNoscriptAnswer(redis, redis.createConnectionFactory(), TIME_AND_KEYS))
			.as("the call whose caller timed out is applied")
			.isEqualTo("after giving up");
	}

	private static String afterACallerGaveUpBeforeItsNoscriptAnswer(RedisServer redis, LettuceConnectionFactory factory,
			LuaScript<Long> script) {
		try {
			RedisScriptRunner runner = new RedisScriptRunner(factory);
			String key = "redkit-test:{gave-up}";
			// bounds far above any answer of a loaded machine, but the one given up
			runner.execute(TIME_AND_KEYS, Duration.ofSeconds(30), List.of(key), "before");
			// EVALSHA reaches a Redis that forgot the script and holds every script (a
			// new connection's handshake still goes through): its NOSCRIPT answer comes
			// after the caller's timeout
			redis.callOnEveryNode("SCRIPT", "FLUSH");
			redis.callOnEveryNode("CLIENT", "PAUSE", "60000", "WRITE");
			try {
				assertThatExceptionOfType(QueryTimeoutException.class)
					.isThrownBy(() -> runner.execute(script, Duration.ofMillis(200), List.of(key), "after giving up"));
			}
			finally {
				redis.callOnEveryNode("CLIENT", "UNPAUSE");
			}
			if (!factory.getShareNativeConnection() && !LettuceConnections.pooled(factory)) {
				// a connection per call, closed once its last command completed
				await().atMost(Duration.ofSeconds(20)).until(() -> clients(redis) == 0);
			}
			// a later call on the same connection: an EVAL sent for the call given up
			// would
			// have been sent on its NOSCRIPT answer, before this one's
			runner.execute(TIME_AND_KEYS, Duration.ofSeconds(30), List.of("redkit-test:{gave-up}:later"), "later");
			return runner.template().opsForValue().get(key);
		}
		finally {
			redis.callOnEveryNode("CLIENT", "UNPAUSE");
			factory.destroy();
		}
	}

	// the clients connected but the one asking
	private static long clients(RedisServer redis) {
		String list = String.valueOf(redis.callOnEveryNode("CLIENT", "LIST").get(0));
		return list.lines().filter((line) -> !line.isBlank()).count() - 1;
	}

}
