package io.github.redkit.core;

import java.time.Duration;
import java.util.Arrays;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RespClient;
import io.lettuce.core.api.StatefulConnection;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A connection factory that shares no connection and pools one, with Boot's default
 * max-wait (for ever), and another borrower that holds that connection in a blocking pop:
 * what a script waits for on such a factory.
 */
public final class OneConnectionPool implements AutoCloseable {

	private final RedisServer redis;

	private final LettuceConnectionFactory factory;

	private OneConnectionPool(RedisServer redis, LettuceConnectionFactory factory) {
		this.redis = redis;
		this.factory = factory;
	}

	/**
	 * A started factory of one pooled connection, unshared, on a server.
	 * @param redis the server
	 * @return the pool
	 */
	public static OneConnectionPool on(RedisServer redis) {
		GenericObjectPoolConfig<StatefulConnection<?, ?>> pool = new GenericObjectPoolConfig<>();
		pool.setMaxTotal(1);
		// Boot's default max-wait: a borrow waits as long as it takes
		pool.setMaxWait(Duration.ofMillis(-1));
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(RedisServer.HOST, redis.port()),
				LettucePoolingClientConfiguration.builder()
					.poolConfig(pool)
					.commandTimeout(Duration.ofSeconds(10))
					.build());
		factory.setShareNativeConnection(false);
		factory.afterPropertiesSet();
		factory.start();
		return new OneConnectionPool(redis, factory);
	}

	/**
	 * The factory.
	 * @return the factory, started
	 */
	public LettuceConnectionFactory factory() {
		return this.factory;
	}

	/**
	 * Lets another borrower hold the pool's only connection in a {@code BLPOP} for a
	 * while, returning once the pop is on the server.
	 * @param seconds how long the pop blocks
	 * @return the borrower's thread, which ends once the pop did
	 */
	public Thread hold(int seconds) {
		byte[] list = ("one-connection-pool-" + UUID.randomUUID()).getBytes();
		CompletableFuture<Void> sent = new CompletableFuture<>();
		Thread borrower = new Thread(() -> {
			try (RedisConnection connection = this.factory.getConnection()) {
				sent.complete(null);
				connection.listCommands().bLPop(seconds, list);
			}
		});
		borrower.start();
		sent.join();
		// the pop on the server: the borrower won the pool's only connection
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		try (RespClient client = this.redis.client(this.redis.port())) {
			while (!client.callForString("CLIENT", "LIST").contains("cmd=blpop")) {
				assertThat(System.nanoTime()).as("the borrower's BLPOP reached the server").isLessThan(deadline);
				Thread.onSpinWait();
			}
		}
		return borrower;
	}

	/**
	 * Whether a thread of this JVM waits to borrow a connection from a pool (a pool's
	 * only one being held): a thread that hands scripts off has taken its first.
	 * @return whether one waits
	 */
	public static boolean aThreadWaitsToBorrow() {
		return Thread.getAllStackTraces()
			.values()
			.stream()
			.anyMatch(
					(stack) -> Arrays.stream(stack).anyMatch((frame) -> frame.getMethodName().equals("borrowObject")));
	}

	@Override
	public void close() {
		this.factory.destroy();
	}

}
