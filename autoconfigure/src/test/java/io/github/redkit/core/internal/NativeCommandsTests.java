package io.github.redkit.core.internal;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;

import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.testsupport.RespClient;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A script with a native form is sent as that command on a server found to take it
 * (Valkey 8.1: {@code SET IFEQ} renews a key holding a value; Valkey 9.1: {@code DELIFEQ}
 * deletes one too), as the script on the others (Redis 7), and as the script again, for
 * good, when a server refuses the command (the other commands still sent); every path
 * gives the same answers.
 */
class NativeCommandsTests {

	// a test script and its form: the mechanism on its own (the lock release's form,
	// which hands some calls to its script, is tested with the locks)
	private static final LuaScript<Long> RENEW = LuaScript.load("test_renew_if_equal", Long.class)
		.withNativeForm(new RenewIfEqual());

	private static final LuaScript<Long> DELETE = DeleteIfEqual.script("cache_unlock");

	private static final Duration TIMEOUT = Duration.ofSeconds(2);

	@Test
	void valkeyExtendsALockWithSetIfEqualInsteadOfAScript() {
		assumeTrue(RedisServers.available("valkey-8"), "valkey-8 is not on this machine (.ci/servers fetches it)");
		RedisServer valkey = RedisServers.named("valkey-8");
		withRunner(valkey, true, (server) -> {
			// Valkey 8.1 has SET IFEQ, not yet DELIFEQ
			assertThat(server.runner.nativeCommands()).containsExactly(NativeCommand.SET_IF_EQUAL);
			CommandStats used = extendTwice(valkey, server.runner);
			assertThat(used.calls("set")).isEqualTo(1 + 2);
			assertThat(used.calls("evalsha") + used.calls("eval")).isZero();
		});
		withRunner(valkey, false, (server) -> {
			assertThat(server.runner.nativeCommands()).isEmpty();
			CommandStats used = extendTwice(valkey, server.runner);
			assertThat(used.calls("set")).isEqualTo(1);
			assertThat(used.calls("evalsha")).isEqualTo(2);
		});
	}

	@Test
	void aServerWithoutTheCommandGetsTheScript() {
		RedisServer redis = RedisServers.standalone();
		withRunner(redis, true, (server) -> {
			assertThat(server.runner.nativeCommands()).isEmpty();
			CommandStats used = extendTwice(redis, server.runner);
			assertThat(used.calls("evalsha")).isEqualTo(2);
		});
	}

	@Test
	void aServerThatRefusesTheCommandGetsTheScriptFromThenOn() {
		RedisServer redis = RedisServers.standalone();
		withRunner(redis, true, (server) -> {
			server.runner.assumeNativeCommands();
			CommandStats used = extendTwice(redis, server.runner);
			// the first extension was refused as SET IFEQ, then sent as the script
			assertThat(used.calls("evalsha")).isEqualTo(2);
			assertThat(server.runner.nativeCommands()).doesNotContain(NativeCommand.SET_IF_EQUAL);
		});
	}

	@Test
	void valkey9DeletesIfEqualWithOneCommand() {
		assumeTrue(RedisServers.available("valkey-9"), "valkey-9 is not on this machine (.ci/servers fetches it)");
		RedisServer valkey = RedisServers.named("valkey-9");
		withRunner(valkey, true, (server) -> {
			assertThat(server.runner.nativeCommands()).containsExactlyInAnyOrder(NativeCommand.SET_IF_EQUAL,
					NativeCommand.DELETE_IF_EQUAL);
			CommandStats used = deleteTwice(valkey, server.runner);
			assertThat(used.calls("delifeq")).isEqualTo(2);
			assertThat(used.calls("evalsha") + used.calls("eval")).isZero();
		});
	}

	@Test
	void aServerThatRefusesOneCommandStillGetsTheOther() {
		RedisServer redis = RedisServers.standalone();
		withRunner(redis, true, (server) -> {
			server.runner.assumeNativeCommands();
			CommandStats used = deleteTwice(redis, server.runner);
			// the first delete was refused as DELIFEQ, then sent as the script; XACKDEL
			// is
			// only ever sent from inside the stream queue's scripts, which fall back by
			// themselves
			assertThat(used.calls("evalsha")).isEqualTo(2);
			assertThat(server.runner.nativeCommands()).containsExactlyInAnyOrder(NativeCommand.SET_IF_EQUAL,
					NativeCommand.ACK_DELETE);
		});
	}

	// a holder renews (the expiry moved on Redis), a stranger's token does not; the
	// commands counted include the one SET that gives the key to the stranger
	private static CommandStats extendTwice(RedisServer redis, RedisScriptRunner runner) {
		String key = "native-" + UUID.randomUUID();
		try (RespClient client = redis.client(redis.port())) {
			client.call("SET", key, "holder", "PX", "5000");
			CommandStats before = redis.commandStats();
			assertThat(runner.execute(RENEW, TIMEOUT, List.of(key), "holder", "60000")).isOne();
			assertThat(Long.parseLong(String.valueOf(client.call("PTTL", key)))).isBetween(50_000L, 60_000L);
			client.call("SET", key, "someone-else");
			assertThat(runner.execute(RENEW, TIMEOUT, List.of(key), "holder", "60000")).isZero();
			assertThat(client.call("GET", key)).isEqualTo("someone-else");
			return redis.commandStats().since(before);
		}
	}

	// a stranger's value is left alone, the one read is deleted
	private static CommandStats deleteTwice(RedisServer redis, RedisScriptRunner runner) {
		String key = "native-" + UUID.randomUUID();
		try (RespClient client = redis.client(redis.port())) {
			client.call("SET", key, "someone-else");
			CommandStats before = redis.commandStats();
			assertThat(runner.execute(DELETE, TIMEOUT, List.of(key), "holder")).isZero();
			assertThat(client.call("GET", key)).isEqualTo("someone-else");
			client.call("SET", key, "holder");
			assertThat(runner.execute(DELETE, TIMEOUT, List.of(key), "holder")).isOne();
			assertThat(client.call("GET", key)).isNull();
			return redis.commandStats().since(before);
		}
	}

	private static void withRunner(RedisServer redis, boolean nativeCommands, Consumer<Runner> test) {
		LettuceConnectionFactory factory = redis.createConnectionFactory();
		RedisScriptRunner runner = new RedisScriptRunner(factory);
		runner.allowNativeCommands(nativeCommands);
		runner.connectInBackground().join();
		try {
			test.accept(new Runner(runner));
		}
		finally {
			factory.destroy();
		}
	}

	record Runner(RedisScriptRunner runner) {

	}

}
