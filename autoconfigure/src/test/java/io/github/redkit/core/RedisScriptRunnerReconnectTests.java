package io.github.redkit.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.testsupport.RespClient;
import io.github.redkit.testsupport.TcpProxy;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With a pooling Lettuce factory that shares its native connection, scripts go on a
 * pooled connection of the runner's own. A disconnect Lettuce reconnects from (a restart,
 * {@code CLIENT KILL}, a failover) keeps it: scripts sent meanwhile wait for the
 * reconnect, in order. Only a connection closed for good is given back, and borrowing the
 * next never holds a caller beyond its timeout.
 */
@ExtendWith(ThreadDumpOnFailure.class)
class RedisScriptRunnerReconnectTests {

	private static final LuaScript<Long> TIME_AND_KEYS = LuaScript.load("test_time_and_keys", Long.class);

	// longer than a loaded machine takes to reconnect and run the scripts sent meanwhile
	// once the link heals (2 s was missed at load 30 to 80)
	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	@Test
	void scriptsSentWhileTheConnectionReconnectsWaitForItInOrder(@PrivateRedis RedisServer redis) throws Exception {
		String key = "redkit-test:{reconnect}:order";
		try (TcpProxy proxy = TcpProxy.start(redis.port())) {
			LettuceConnectionFactory factory = sharedPooledFactory(proxy.port(), 4, Duration.ofMillis(-1));
			try {
				RedisScriptRunner runner = new RedisScriptRunner(factory);
				runner.connectInBackground().get(10, TimeUnit.SECONDS);
				RedisScriptRunner.await(runner.executeAsync(TIME_AND_KEYS, TIMEOUT, List.of(key), "warm-up"), TIMEOUT,
						"warm-up");
				StatefulConnection<?, ?> shared = sharedConnection(factory);
				// every connection is cut, and their reconnects held, as by a restart
				proxy.partition();
				CompletableFuture<Long> first = runner.executeAsync(TIME_AND_KEYS, TIMEOUT, List.of(key), "first");
				proxy.cut();
				await().atMost(Duration.ofSeconds(5)).until(() -> !shared.isOpen());
				// only the sends on this thread are timed, each apart: the reconnect is
				// held
				// until the link heals, after them, so a send that waited for it would
				// wait
				// for its timeout; the median send tells a send that blocks a while (a
				// loaded machine stalls a few of them, not half)
				long[] sends = new long[101];
				long start = System.nanoTime();
				List<CompletableFuture<Long>> during = new ArrayList<>();
				for (int i = 0; i < 100; i++) {
					long sent = System.nanoTime();
					during.add(runner.executeAsync(TIME_AND_KEYS, TIMEOUT, List.of(key + ":" + i), "during"));
					sends[i] = System.nanoTime() - sent;
				}
				long sent = System.nanoTime();
				CompletableFuture<Long> last = runner.executeAsync(TIME_AND_KEYS, TIMEOUT, List.of(key), "last");
				sends[100] = System.nanoTime() - sent;
				Duration loop = Duration.ofNanos(System.nanoTime() - start);
				assertThat(loop).as("101 sends, none waiting for the reconnect").isLessThan(TIMEOUT.dividedBy(2));
				Arrays.sort(sends);
				assertThat(Duration.ofNanos(sends[50])).as("the median send, of %s in all", loop)
					.isLessThan(Duration.ofMillis(20));
				assertThat(during).as("none answered before the link healed").noneMatch(CompletableFuture::isDone);
				proxy.heal();
				for (CompletableFuture<Long> answer : during) {
					assertThat(RedisScriptRunner.join(answer)).isPositive();
				}
				assertThat(RedisScriptRunner.join(first)).isPositive();
				assertThat(RedisScriptRunner.join(last)).isPositive();
				try (RespClient client = redis.client(redis.port())) {
					assertThat(client.callForString("GET", key)).as("the last script sent ran last").isEqualTo("last");
				}
			}
			finally {
				proxy.heal();
				factory.destroy();
			}
		}
	}

	@Test
	void borrowingAnotherConnectionNeverHoldsACallerBeyondItsTimeout(@PrivateRedis RedisServer redis) throws Exception {
		Duration timeout = Duration.ofSeconds(1);
		// Boot's default max-wait: a borrow waits for the pool as long as it takes
		LettuceConnectionFactory factory = sharedPooledFactory(redis.port(), 2, Duration.ofMillis(-1));
		ExecutorService callers = Executors.newFixedThreadPool(10);
		RedisConnection held = null;
		try {
			RedisScriptRunner runner = new RedisScriptRunner(factory);
			runner.connectInBackground().get(10, TimeUnit.SECONDS);
			RedisScriptRunner.await(runner.executeAsync(TIME_AND_KEYS, timeout, List.of("k"), "warm-up"),
					Duration.ofSeconds(5), "warm-up");
			// the pool closes every connection, the runner's own too; the new pool's
			// two go to the shared connection and to a consumer that keeps its own
			factory.stop();
			factory.start();
			sharedConnection(factory);
			held = factory.getConnection();
			held.openPipeline();
			List<Future<Duration>> calls = new ArrayList<>();
			for (int i = 0; i < 10; i++) {
				calls.add(callers.submit(() -> {
					long start = System.nanoTime();
					try {
						runner.execute(TIME_AND_KEYS, timeout, List.of("k"), "blocked");
					}
					catch (DataAccessException ex) {
						// expected: no connection in time
					}
					return Duration.ofNanos(System.nanoTime() - start);
				}));
			}
			for (Future<Duration> call : calls) {
				assertThat(call.get(5, TimeUnit.SECONDS)).isLessThan(timeout.plusMillis(500));
			}
			held.closePipeline();
			held.close();
			held = null;
			assertThat(RedisScriptRunner.await(
					runner.executeAsync(TIME_AND_KEYS, Duration.ofSeconds(5), List.of("k"), "freed"),
					Duration.ofSeconds(5), "freed"))
				.isPositive();
		}
		finally {
			if (held != null) {
				held.close();
			}
			callers.shutdownNow();
			factory.destroy();
		}
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void theRunnersOwnConnectionGoesBackBeforeThePoolCloses(CapturedOutput output) {
		ApplicationContextRunner contexts = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class))
			.withPropertyValues(RedisServers.standalone().springProperties())
			.withPropertyValues("spring.data.redis.lettuce.pool.enabled=true",
					"spring.data.redis.lettuce.pool.max-active=4");
		contexts.run((context) -> {
			RedisScriptRunner runner = context.getBean(RedisScriptRunner.class);
			assertThat(RedisScriptRunner.await(
					runner.executeAsync(TIME_AND_KEYS, Duration.ofSeconds(5), List.of("redkit-test:{close}"), "v"),
					Duration.ofSeconds(5), "warm-up"))
				.isPositive();
		});
		assertThat(output).doesNotContain("unreleased connections");
	}

	private static StatefulConnection<?, ?> sharedConnection(LettuceConnectionFactory factory) {
		try (RedisConnection connection = factory.getConnection()) {
			connection.ping();
			return ((RedisAsyncCommands<?, ?>) connection.getNativeConnection()).getStatefulConnection();
		}
	}

	private static LettuceConnectionFactory sharedPooledFactory(int port, int maxActive, Duration maxWait) {
		GenericObjectPoolConfig<StatefulConnection<?, ?>> pool = new GenericObjectPoolConfig<>();
		pool.setMaxTotal(maxActive);
		pool.setMaxWait(maxWait);
		LettucePoolingClientConfiguration client = LettucePoolingClientConfiguration.builder()
			.poolConfig(pool)
			.commandTimeout(Duration.ofSeconds(10))
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(RedisServer.HOST, port), client);
		factory.setShareNativeConnection(true);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
