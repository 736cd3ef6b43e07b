package io.github.redkit.core.internal;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.LockSettings;
import io.github.redkit.lock.internal.RedisDistributedLocks;
import io.github.redkit.test.CommandStats;
import io.github.redkit.test.RedisServer;
import io.github.redkit.test.RedisServers;
import io.github.redkit.test.RespClient;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A script with a native form is sent as that command on a server found to take it
 * (Valkey 8.1: {@code SET IFEQ} extends a lock), as the script on the others (Redis 7),
 * and as the script again, for good, when a server refuses the command; every path gives
 * the same answers.
 */
class NativeCommandsTests {

	@Test
	void valkeyExtendsALockWithSetIfEqualInsteadOfAScript() {
		assumeTrue(RedisServers.available("valkey-8"), "valkey-8 is not on this machine (.ci/servers fetches it)");
		RedisServer valkey = RedisServers.named("valkey-8");
		withLocks(valkey, true, (locks) -> {
			assertThat(locks.runner.nativeCommands()).isTrue();
			CommandStats used = extendTwice(valkey, locks.locks);
			assertThat(used.calls("set")).isEqualTo(1 + 2);
			assertThat(used.calls("evalsha") + used.calls("eval")).isZero();
		});
		withLocks(valkey, false, (locks) -> {
			assertThat(locks.runner.nativeCommands()).isFalse();
			CommandStats used = extendTwice(valkey, locks.locks);
			assertThat(used.calls("set")).isEqualTo(1);
			assertThat(used.calls("evalsha")).isEqualTo(2);
		});
	}

	@Test
	void aServerWithoutTheCommandGetsTheScript() {
		RedisServer redis = RedisServers.standalone();
		withLocks(redis, true, (locks) -> {
			assertThat(locks.runner.nativeCommands()).isFalse();
			CommandStats used = extendTwice(redis, locks.locks);
			assertThat(used.calls("evalsha")).isEqualTo(2);
		});
	}

	@Test
	void aServerThatRefusesTheCommandGetsTheScriptFromThenOn() {
		RedisServer redis = RedisServers.standalone();
		withLocks(redis, true, (locks) -> {
			locks.runner.assumeNativeCommands();
			CommandStats used = extendTwice(redis, locks.locks);
			// the first extension was refused as SET IFEQ, then sent as the script
			assertThat(used.calls("evalsha")).isEqualTo(2);
			assertThat(locks.runner.nativeCommands()).isFalse();
		});
	}

	// a holder extends (the lease renewed on Redis), a stranger's token does not; the
	// commands counted include the one SET that gives the lock to the stranger
	private static CommandStats extendTwice(RedisServer redis, RedisDistributedLocks locks) {
		String key = "native-" + UUID.randomUUID();
		try (LockHandle handle = locks.tryLock(key, Duration.ZERO, Duration.ofSeconds(5)).orElseThrow();
				RespClient client = redis.client(redis.port())) {
			String lockKey = locks.redisKeys(key).get(0);
			CommandStats before = redis.commandStats();
			assertThat(handle.extend(Duration.ofSeconds(60))).isTrue();
			assertThat(Long.parseLong(String.valueOf(client.call("PTTL", lockKey)))).isBetween(50_000L, 60_000L);
			client.call("SET", lockKey, "someone-else");
			assertThat(handle.extend(Duration.ofSeconds(60))).isFalse();
			assertThat(client.call("GET", lockKey)).isEqualTo("someone-else");
			return redis.commandStats().since(before);
		}
	}

	private static void withLocks(RedisServer redis, boolean nativeCommands, Consumer<Locks> test) {
		LettuceConnectionFactory factory = redis.createConnectionFactory();
		RedisScriptRunner runner = new RedisScriptRunner(factory);
		runner.allowNativeCommands(nativeCommands);
		runner.connectInBackground().join();
		RedisDistributedLocks locks = new RedisDistributedLocks(runner, new RedisKeyspace("redkit-test"),
				new LockSettings(Duration.ofSeconds(30), Duration.ofSeconds(2), Duration.ofSeconds(1)),
				RedkitMetrics.NONE, RedkitObservations.NONE, List.of());
		try {
			test.accept(new Locks(runner, locks));
		}
		finally {
			locks.destroy();
			factory.destroy();
		}
	}

	record Locks(RedisScriptRunner runner, RedisDistributedLocks locks) {

	}

}
