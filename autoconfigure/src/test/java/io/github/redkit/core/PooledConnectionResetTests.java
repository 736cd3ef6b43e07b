package io.github.redkit.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.queue.QueueAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.queue.QueueListener;
import io.github.redkit.queue.QueueListenerRegistry;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RespClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With a pooling Lettuce factory that shares its native connection (Spring Boot's default
 * once {@code spring.data.redis.lettuce.pool.enabled=true}), a reset
 * ({@code resetConnection()}, or a failed validation) gives the shared connection back to
 * the pool, open. Redkit's scripts never follow it to the next borrower: a queue
 * consumer's blocking pop would hold them, a transaction would swallow them.
 */
@ExtendWith(ThreadDumpOnFailure.class)
class PooledConnectionResetTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				RateLimitAutoConfiguration.class, QueueAutoConfiguration.class))
		.withUserConfiguration(ListenerConfiguration.class)
		.withPropertyValues("redkit.rate-limit.timeout=200ms", "redkit.rate-limit.failure-mode=deny",
				"redkit.rate-limit.failure-cooldown=0s", "redkit.rate-limit.limits.api.windows[0].limit=1000000",
				"redkit.rate-limit.limits.api.windows[0].period=1h", "redkit.queue.poll-timeout=2s",
				"spring.data.redis.timeout=10s", "spring.data.redis.lettuce.pool.enabled=true",
				"spring.data.redis.lettuce.pool.max-active=4");

	@Test
	void everyDecisionDecidesAfterAResetBesideAnIdleListener(@PrivateRedis RedisServer redis) {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			LettuceConnectionFactory factory = context.getBean(LettuceConnectionFactory.class);
			assertThat(factory.getShareNativeConnection()).as("Boot's default").isTrue();
			RateLimiter limiter = context.getBean(RateLimiter.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> limiter.tryAcquire("api", "warm-up").allowed());
			QueueListenerRegistry listeners = context.getBean(QueueListenerRegistry.class);
			// the shared connection goes back to the pool; then the consumer gives
			// its
			// own back and borrows again, as it does after a failure (the kind of
			// failure that makes a validation reset the factory): the factory's new
			// shared connection is the consumer's old one, and the consumer's
			// blocking pop gets the one the reset gave back
			factory.resetConnection();
			listeners.stop();
			listeners.start();
			await().atMost(Duration.ofSeconds(10)).until(() -> blockedClients(redis) == 1);
			List<Boolean> decided = IntStream.range(0, 50)
				.mapToObj((i) -> limiter.tryAcquire("api", "call-" + i))
				.map(RateLimitDecision::allowed)
				.toList();
			// failure-mode deny: a decision Redis did not answer in 200 ms is refused
			assertThat(decided).containsOnly(true);
		});
	}

	@Test
	void aTransactionOnTheConnectionAResetGaveBackHoldsOnlyItsOwnCommands(@PrivateRedis RedisServer redis) {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			LettuceConnectionFactory factory = context.getBean(LettuceConnectionFactory.class);
			RateLimiter limiter = context.getBean(RateLimiter.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> limiter.tryAcquire("api", "warm-up").allowed());
			context.getBean(QueueListenerRegistry.class).stop();
			factory.resetConnection();
			// a blocking command borrows a dedicated connection from the pool: the
			// one the reset gave back, the last returned
			try (RedisConnection transaction = factory.getConnection()) {
				transaction.multi();
				transaction.stringCommands().set(bytes("redkit-test:{reset}:own"), bytes("v"));
				RateLimitDecision decision = limiter.tryAcquire("api", "in-a-transaction");
				assertThat(decision.allowed()).as("decided by Redis, not queued in another's transaction").isTrue();
				assertThat(transaction.exec()).as("the transaction holds only its own command").hasSize(1);
			}
		});
	}

	private static long blockedClients(RedisServer redis) {
		try (RespClient client = redis.client(redis.port())) {
			String clients = client.callForString("INFO", "clients");
			return clients.lines()
				.filter((line) -> line.startsWith("blocked_clients:"))
				.mapToLong((line) -> Long.parseLong(line.substring(line.indexOf(':') + 1).trim()))
				.findFirst()
				.orElse(-1);
		}
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	@Configuration(proxyBeanMethods = false)
	static class ListenerConfiguration {

		@Bean
		IdleListener idleListener() {
			return new IdleListener();
		}

	}

	static class IdleListener {

		@QueueListener(queue = "idle")
		void on(String message) {
		}

	}

}
