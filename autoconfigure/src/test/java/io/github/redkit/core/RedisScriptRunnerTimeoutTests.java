package io.github.redkit.core;

import java.time.Duration;
import java.util.List;

import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

@ExtendWith(ThreadDumpOnFailure.class)
class RedisScriptRunnerTimeoutTests {

	private static final LuaScript<Long> TIME_AND_KEYS = LuaScript.load("test_time_and_keys", Long.class);

	@Test
	void aFrozenRedisTimesOutWithinTheBoundAndRecovers(@PrivateRedis RedisServer redis) {
		LettuceConnectionFactory factory = redis.createConnectionFactory();
		try {
			RedisScriptRunner runner = new RedisScriptRunner(factory);
			List<String> keys = List.of("redkit-test:{timeout}");
			runner.execute(TIME_AND_KEYS, Duration.ofSeconds(5), keys, "x");
			redis.pause();
			long start = System.nanoTime();
			assertThatExceptionOfType(QueryTimeoutException.class)
				.isThrownBy(() -> runner.execute(TIME_AND_KEYS, Duration.ofMillis(200), keys, "y"))
				.withMessageContaining("test_time_and_keys");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
			redis.resume();
			assertThat(runner.execute(TIME_AND_KEYS, Duration.ofSeconds(5), keys, "z")).isPositive();
		}
		finally {
			redis.resume();
			factory.destroy();
		}
	}

}
