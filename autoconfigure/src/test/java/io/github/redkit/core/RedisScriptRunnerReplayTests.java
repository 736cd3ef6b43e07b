package io.github.redkit.core;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.testsupport.RespClient;
import io.github.redkit.testsupport.TcpProxy;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.protocol.RedisCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * A script made {@link LuaScript#droppingReplays()} is delivered at most once by Redkit's
 * own code too (issue 43): once written, it is never sent again on another connection,
 * and only a script whose reply is one value may drop its re-sends.
 */
class RedisScriptRunnerReplayTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(15);

	private static final LuaScript<Long> COUNT = LuaScript.load("test_count", Long.class).droppingReplays();

	private final TcpProxy link = TcpProxy.start(RedisServers.standalone().port());

	private final ClosingFactory factory = new ClosingFactory(this.link);

	private final String key = "rlrp-count-" + UUID.randomUUID();

	@AfterEach
	void close() {
		this.factory.destroy();
		this.link.close();
	}

	@Test
	void aCallWrittenBeforeItsConnectionClosedIsNotSentAgainOnAnother() throws Exception {
		RedisScriptRunner runner = new RedisScriptRunner(this.factory);
		// connected, its connection kept, and the script loaded, before the cut
		assertThat(runner.executeAsync(COUNT, List.of(this.key + "-warm-up")).get(15, TimeUnit.SECONDS)).isOne();
		this.factory.closeAfterNextWrite = true;
		this.link.cutAfterNextWrite();
		CompletableFuture<Long> answer = runner.executeAsync(COUNT, List.of(this.key));
		Throwable failure = catchThrowable(() -> answer.get(15, TimeUnit.SECONDS));
		assertThat(this.link.cutsAfterWrite()).isOne();
		try (RespClient client = RedisServers.standalone().client(RedisServers.standalone().port())) {
			assertThat(client.callForString("GET", this.key)).as("applied once").isEqualTo("1");
		}
		// applied, its answer lost with the connection: the outcome is unknown to the
		// caller
		assertThat(failure).isNotNull();
	}

	@Test
	@SuppressWarnings("rawtypes")
	void aScriptWhoseReplyIsAnArrayCannotDropItsReplays() {
		LuaScript<List> array = LuaScript.load("test_count", List.class);
		assertThatIllegalArgumentException().isThrownBy(array::droppingReplays)
			.withMessageContaining("test_count")
			.withMessageContaining("resultType");
	}

	/**
	 * A factory whose connection, armed, is closed for good (the factory resets it) once
	 * a call was written and cut, before the caller's thread looks at its answer: the
	 * order a slow caller's thread meets.
	 */
	static final class ClosingFactory extends LettuceConnectionFactory {

		private static final Object NOT_HANDLED = new Object();

		private final TcpProxy link;

		volatile boolean closeAfterNextWrite;

		ClosingFactory(TcpProxy link) {
			super(new RedisStandaloneConfiguration(RedisServer.HOST, link.port()),
					LettuceClientConfiguration.builder()
						.commandTimeout(TIMEOUT)
						.clientOptions(ClientOptions.builder().autoReconnect(false).build())
						.build());
			this.link = link;
			afterPropertiesSet();
			start();
		}

		@Override
		public RedisConnection getConnection() {
			RedisConnection connection = super.getConnection();
			return proxy(RedisConnection.class, connection,
					(method, args) -> "getNativeConnection".equals(method.getName())
							? commands(connection.getNativeConnection()) : NOT_HANDLED);
		}

		@SuppressWarnings("unchecked")
		private Object commands(Object nativeConnection) {
			RedisAsyncCommands<byte[], byte[]> commands = (RedisAsyncCommands<byte[], byte[]>) nativeConnection;
			StatefulRedisConnection<byte[], byte[]> stateful = commands.getStatefulConnection();
			StatefulRedisConnection<byte[], byte[]> closing = proxy(StatefulRedisConnection.class, stateful,
					(method, args) -> {
						if (!"dispatch".equals(method.getName()) || !(args[0] instanceof RedisCommand<?, ?, ?> sent)) {
							return NOT_HANDLED;
						}
						Object dispatched = invoke(method, stateful, args);
						if (this.closeAfterNextWrite) {
							this.closeAfterNextWrite = false;
							await().atMost(TIMEOUT).until(() -> this.link.cutsAfterWrite() == 1);
							resetConnection();
							await().atMost(TIMEOUT).until(sent::isDone);
						}
						return dispatched;
					});
			return proxy(RedisAsyncCommands.class, commands,
					(method, args) -> "getStatefulConnection".equals(method.getName()) ? closing : NOT_HANDLED);
		}

		@SuppressWarnings("unchecked")
		private static <T> T proxy(Class<?> type, Object target, Handler handler) {
			InvocationHandler invocation = (proxy, method, args) -> {
				Object handled = handler.handle(method, args);
				return (handled != NOT_HANDLED) ? handled : invoke(method, target, args);
			};
			return (T) Proxy.newProxyInstance(RedisScriptRunnerReplayTests.class.getClassLoader(),
					new Class<?>[] { type }, invocation);
		}

		private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
			try {
				return method.invoke(target, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getCause();
			}
		}

		interface Handler {

			Object handle(Method method, Object[] args) throws Throwable;

		}

	}

}
