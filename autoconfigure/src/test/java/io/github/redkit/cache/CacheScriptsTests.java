package io.github.redkit.cache;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.github.redkit.cache.internal.SingleFlight;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cache scripts run directly against Redis.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.SCRIPTS)
class CacheScriptsTests {

	@Parameter
	RedisTopology topology;

	private RedisScriptRunner runner;

	private SingleFlight flight;

	@BeforeEach
	void connect() {
		this.runner = new RedisScriptRunner(this.topology.connectionFactory());
		this.flight = new SingleFlight(this.runner, new RedisKeyspace("redkit-test"));
	}

	@Test
	void onlyOneOwnerHoldsTheLockAndOnlyTheOwnerReleasesIt() {
		String lock = this.flight.lockKey(("products::" + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8));
		assertThat(lock).startsWith("redkit-test:cache:{products%3A%3A").endsWith("}:flight");
		assertThat(this.flight.tryLock(lock, "a", Duration.ofSeconds(5))).isTrue();
		assertThat(this.flight.tryLock(lock, "b", Duration.ofSeconds(5))).isFalse();
		assertThat(this.runner.template().getExpire(lock)).isBetween(1L, 5L);
		this.flight.unlock(lock, "b", Duration.ofSeconds(5));
		assertThat(this.flight.tryLock(lock, "b", Duration.ofSeconds(5))).isFalse();
		this.flight.unlock(lock, "a", Duration.ofSeconds(5));
		assertThat(this.flight.tryLock(lock, "b", Duration.ofSeconds(5))).isTrue();
	}

	@Test
	void anUnlockIsOneDeleteIfEqualOnAServerThatHasIt() {
		// the runner as the application has it: connected, the server's commands read
		this.runner.connectInBackground().join();
		String lock = this.flight.lockKey(("products::" + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8));
		assertThat(this.flight.tryLock(lock, "a", Duration.ofSeconds(5))).isTrue();
		// loads the script where it is the unlock (on a cluster, on the key's node)
		this.flight.unlock(lock, "c", Duration.ofSeconds(5));
		CommandStats before = this.topology.server().commandStats();
		this.flight.unlock(lock, "b", Duration.ofSeconds(5));
		this.flight.unlock(lock, "a", Duration.ofSeconds(5));
		CommandStats used = this.topology.server().commandStats().since(before);
		assertThat(this.flight.tryLock(lock, "b", Duration.ofSeconds(5))).isTrue();
		// Valkey 9's DELIFEQ is the compare-and-delete; the others run the script
		boolean deleteIfEqual = this.topology == RedisTopology.VALKEY_9;
		assertThat(used.calls("delifeq")).as(used.toString()).isEqualTo(deleteIfEqual ? 2 : 0);
		assertThat(used.calls("evalsha") + used.calls("eval")).as(used.toString()).isEqualTo(deleteIfEqual ? 0 : 2);
	}

	@Test
	void readsAValueAndItsRemainingTtlInOneCall() {
		LuaScript<List> script = LuaScript.load("cache_get_with_ttl", List.class);
		String key = "products::" + UUID.randomUUID();
		assertThat(this.runner.execute(script, List.of(key))).containsExactly(null, -2L);
		this.runner.template().opsForValue().set(key, "{\"a\":1}", Duration.ofSeconds(30));
		List<?> reply = this.runner.execute(script, List.of(key));
		assertThat(reply.get(0)).isEqualTo("{\"a\":1}");
		assertThat((Long) reply.get(1)).isBetween(29_000L, 30_000L);
	}

}
