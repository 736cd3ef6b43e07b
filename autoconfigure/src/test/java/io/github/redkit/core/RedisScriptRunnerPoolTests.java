package io.github.redkit.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redkit.test.RedisServers;
import io.lettuce.core.api.StatefulConnection;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * With pooled, dedicated connections ({@code spring.data.redis.lettuce.pool.enabled=true}
 * and no shared native connection), a script sent asynchronously keeps its connection
 * until Redis has answered: the pool never hands a connection with a command in flight to
 * another borrower (who could start a transaction or a blocking pop around it).
 */
class RedisScriptRunnerPoolTests {

	private static final LuaScript<Long> SLOW = LuaScript.load("test_slow", Long.class);

	private LettuceConnectionFactory factory;

	@BeforeEach
	void createPoolOfOne() {
		GenericObjectPoolConfig<StatefulConnection<?, ?>> pool = new GenericObjectPoolConfig<>();
		pool.setMaxTotal(1);
		pool.setMaxWait(Duration.ofMillis(100));
		LettucePoolingClientConfiguration client = LettucePoolingClientConfiguration.builder()
			.poolConfig(pool)
			.commandTimeout(Duration.ofSeconds(5))
			.build();
		this.factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", RedisServers.standalone().port()), client);
		this.factory.setShareNativeConnection(false);
		this.factory.afterPropertiesSet();
		this.factory.start();
	}

	@AfterEach
	void destroy() {
		this.factory.destroy();
	}

	@Test
	void aConnectionGoesBackToThePoolOnlyOnceItsScriptAnswered() {
		RedisScriptRunner runner = new RedisScriptRunner(this.factory);
		// once connected, an asynchronous script is sent (and its connection borrowed) on
		// the calling thread
		RedisScriptRunner.await(runner.executeAsync(SLOW, List.of("slow"), "0"), Duration.ofSeconds(5), "warm-up");
		CompletableFuture<Long> inFlight = runner.executeAsync(SLOW, List.of("slow"), "500");
		assertThat(inFlight).isNotDone();
		assertThatException().as("the only connection is still busy with the script").isThrownBy(this::borrowAndPing);
		assertThat(RedisScriptRunner.await(inFlight, Duration.ofSeconds(5), "slow")).isEqualTo(1);
		assertThat(borrowAndPing()).isEqualTo("PONG");
	}

	private String borrowAndPing() {
		try (RedisConnection connection = this.factory.getConnection()) {
			return connection.ping();
		}
	}

}
