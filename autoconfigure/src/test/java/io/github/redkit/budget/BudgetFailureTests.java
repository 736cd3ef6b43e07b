package io.github.redkit.budget;

import java.time.Duration;
import java.util.Set;

import io.github.redkit.budget.internal.RedisBudgets;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.idempotency.internal.IdempotencySettings;
import io.github.redkit.idempotency.internal.RedisIdempotentSteps;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Budgets and steps fail closed, within their timeout, when Redis does not answer.
 */
class BudgetFailureTests {

	@PrivateRedis
	private static RedisServer redis;

	@PrivateRedis
	private static LettuceConnectionFactory connectionFactory;

	@BeforeAll
	static void start() {
		// a cold JVM's first connection takes longer than the 300 ms under test
		new StringRedisTemplate(connectionFactory).hasKey("warm");
	}

	@Test
	void aFrozenRedisRefusesWithinTheTimeout() {
		RedisScriptRunner runner = new RedisScriptRunner(connectionFactory);
		RedisKeyspace keyspace = new RedisKeyspace("redkit-test");
		Budgets budgets = new RedisBudgets(runner, keyspace, Duration.ofMillis(300), Duration.ofHours(1),
				RedkitMetrics.NONE, RedkitObservations.NONE);
		IdempotentSteps steps = new RedisIdempotentSteps(runner, keyspace, JsonMapper.builder().build(),
				new IdempotencySettings(Duration.ofHours(1), Duration.ofSeconds(30), Duration.ofMillis(300)),
				RedkitMetrics.NONE, RedkitObservations.NONE);
		budgets.create("frozen", 100);
		redis.pause();
		try {
			long start = System.nanoTime();
			assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> budgets.spend("frozen", 10));
			assertThatExceptionOfType(DataAccessException.class)
				.isThrownBy(() -> steps.claim("frozen", "bid", Set.of(), null));
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
		}
		finally {
			redis.resume();
		}
		assertThat(budgets.remaining("frozen")).isIn(90L, 100L);
	}

}
