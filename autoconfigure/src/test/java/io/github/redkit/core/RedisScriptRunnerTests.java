package io.github.redkit.core;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;

import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

@ParameterizedClass
@RedisTopologies(exercises = Exercises.BOTH)
class RedisScriptRunnerTests {

	private static final LuaScript<Long> TIME_AND_KEYS = LuaScript.load("test_time_and_keys", Long.class);

	private static final LuaScript<Long> FAILING = LuaScript.load("test_failing", Long.class);

	private static final LuaScript<byte[]> ECHO_BYTES = LuaScript.load("test_echo_bytes", byte[].class);

	@Parameter
	RedisTopology topology;

	private RedisServer redis;

	private RedisScriptRunner runner;

	private final RedisKeyspace keyspace = new RedisKeyspace("redkit-test");

	@BeforeEach
	void connect() {
		this.redis = this.topology.server();
		this.runner = new RedisScriptRunner(this.topology.connectionFactory());
	}

	@Test
	void runsAScriptInOneRoundTripOnKeysThatShareATag() {
		List<String> keys = List.of(this.keyspace.key("test").tag("user:1").part("a").build(),
				this.keyspace.key("test").tag("user:1").part("b").build());
		this.runner.execute(TIME_AND_KEYS, keys, "warm-up");
		CommandStats before = this.redis.commandStats();
		Long redisMillis = this.runner.execute(TIME_AND_KEYS, keys, "v");
		CommandStats used = this.redis.commandStats().since(before).without(this.redis.backgroundCommands());
		assertThat(used.calls("evalsha")).isEqualTo(1);
		assertThat(used.total() - used.calls("set") - used.calls("time")).isEqualTo(1);
		assertThat(redisMillis).isCloseTo(System.currentTimeMillis(), org.assertj.core.data.Offset.offset(60_000L));
		assertThat(this.runner.template().opsForValue().get(keys.get(1))).isEqualTo("v");
		assertThat(this.runner.template().getExpire(keys.get(0))).isPositive();
	}

	@Test
	void runsAsynchronouslyAndReloadsAScriptRedisForgot() {
		List<String> keys = List.of(this.keyspace.key("test").tag("async").build());
		this.redis.callOnEveryNode("SCRIPT", "FLUSH");
		Long first = this.runner.execute(TIME_AND_KEYS, Duration.ofSeconds(5), keys, "a");
		Long second = RedisScriptRunner.await(this.runner.executeAsync(TIME_AND_KEYS, keys, "b"), Duration.ofSeconds(5),
				"test");
		assertThat(second).isGreaterThanOrEqualTo(first);
		assertThat(this.runner.template().opsForValue().get(keys.get(0))).isEqualTo("b");
	}

	@Test
	void anAsynchronousFailureIsNamedToo() {
		assertThatExceptionOfType(RedkitScriptException.class)
			.isThrownBy(() -> this.runner.execute(FAILING, Duration.ofSeconds(5),
					List.of(this.keyspace.key("test").tag("x").build())))
			.withMessageContaining("'test_failing'");
	}

	@Test
	void aFailingScriptIsNamedInTheError() {
		assertThatExceptionOfType(RedkitScriptException.class)
			.isThrownBy(() -> this.runner.execute(FAILING, List.of(this.keyspace.key("test").tag("x").build())))
			.withMessageContaining("'test_failing'")
			.withMessageContaining("broken on purpose")
			.satisfies((ex) -> assertThat(ex.getScriptName()).isEqualTo("test_failing"));
	}

	@Test
	void aScriptIncludesSharedFunctions() {
		LuaScript<Long> including = LuaScript.load("test_including", Long.class);
		assertThat(including.redisScript().getScriptAsString()).doesNotContain("--#include")
			.contains("local function twice");
		assertThat(this.runner.execute(including, List.of("{include}:key"), "21")).isEqualTo(42);
	}

	@Test
	void binaryArgumentsAndRepliesArriveAsTheyAre() {
		byte[][] args = { { 0, (byte) 0xff, '\n' }, { (byte) 0xc3, 0, ' ' } };
		byte[] joined = { 0, (byte) 0xff, '\n', (byte) 0xc3, 0, ' ' };
		String key = this.keyspace.key("test").tag("bytes").build();
		assertThat(this.runner.execute(ECHO_BYTES, Duration.ofSeconds(5), List.of(key), args)).isEqualTo(joined);
		RedisScriptRunner withoutLettuceApi = new RedisScriptRunner(
				hidingNativeConnections(this.topology.connectionFactory()));
		assertThat(RedisScriptRunner.await(withoutLettuceApi.executeAsync(ECHO_BYTES, List.of(key), args),
				Duration.ofSeconds(5), "echo"))
			.isEqualTo(joined);
		assertThat(withoutLettuceApi.execute(TIME_AND_KEYS, Duration.ofSeconds(5), List.of(key), "text")).isPositive();
	}

	// a factory whose connections offer no Lettuce API: the runner's path for other
	// drivers
	private static RedisConnectionFactory hidingNativeConnections(RedisConnectionFactory factory) {
		return (RedisConnectionFactory) Proxy.newProxyInstance(RedisScriptRunnerTests.class.getClassLoader(),
				ClassUtils.getAllInterfaces(factory), (proxy, method, arguments) -> {
					Object result = invoke(factory, method, arguments);
					if (result instanceof RedisConnection connection) {
						return Proxy.newProxyInstance(RedisScriptRunnerTests.class.getClassLoader(),
								ClassUtils.getAllInterfaces(connection),
								(p, m, a) -> m.getName().equals("getNativeConnection") ? new Object()
										: invoke(connection, m, a));
					}
					return result;
				});
	}

	private static Object invoke(Object target, Method method, Object[] arguments) throws Throwable {
		try {
			return method.invoke(target, arguments);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

	@Test
	void aMissingScriptIsAClearError() {
		assertThatIllegalStateException().isThrownBy(() -> LuaScript.load("no_such_script", Long.class))
			.withMessageContaining("no_such_script");
	}

}
