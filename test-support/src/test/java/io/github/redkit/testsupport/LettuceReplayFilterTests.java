package io.github.redkit.testsupport;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What Lettuce's own {@code ClientOptions.replayFilter} does (7.5), against a real
 * server: why Redkit drops the re-sends of its rate-limit decisions itself (issue 43). It
 * is never asked of a command written and left unanswered, which is re-sent; it is asked
 * of a command written while the connection is down, which it drops without completing
 * it.
 */
class LettuceReplayFilterTests {

	@Test
	void aCommandWrittenAndLeftUnansweredIsResentWhateverTheFilterSays() {
		RedisServer redis = RedisServers.standalone();
		String key = "replay-filter:" + UUID.randomUUID();
		AtomicInteger asked = new AtomicInteger();
		try (TcpProxy proxy = TcpProxy.start(redis.port()); RespClient direct = redis.client(redis.port())) {
			RedisClient client = client(proxy, Duration.ofSeconds(10), asked);
			try (StatefulRedisConnection<String, String> connection = client.connect()) {
				assertThat(connection.sync().ping()).isEqualTo("PONG");
				proxy.cutAfterNextWrite();
				assertThat(connection.sync().incr(key)).isEqualTo(2);
				assertThat(proxy.cutsAfterWrite()).isEqualTo(1);
			}
			finally {
				client.shutdown();
			}
			assertThat(direct.call("GET", key)).as("applied twice").isEqualTo("2");
			assertThat(asked).as("the filter was never asked").hasValue(0);
			direct.call("DEL", key);
		}
	}

	@Test
	void aCommandWrittenWhileDisconnectedIsDroppedAndNeverCompletedButByItsTimeout() throws Exception {
		RedisServer redis = RedisServers.standalone();
		String key = "replay-filter:" + UUID.randomUUID();
		AtomicInteger asked = new AtomicInteger();
		try (TcpProxy proxy = TcpProxy.start(redis.port()); RespClient direct = redis.client(redis.port())) {
			RedisClient client = client(proxy, Duration.ofSeconds(1), asked);
			try (StatefulRedisConnection<String, String> connection = client.connect()) {
				assertThat(connection.sync().ping()).isEqualTo("PONG");
				// the reconnect is held: every command from now is written while
				// disconnected
				proxy.partition();
				proxy.cut();
				long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
				while (connection.isOpen() && System.nanoTime() < deadline) {
					Thread.onSpinWait();
				}
				assertThat(connection.isOpen()).isFalse();
				RedisFuture<Long> incr = connection.async().incr(key);
				assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> incr.get(10, TimeUnit.SECONDS))
					.withCauseInstanceOf(RedisCommandTimeoutException.class);
				assertThat(asked).as("asked of the command never written").hasValue(1);
				proxy.heal();
				assertThat(connection.sync().ping()).isEqualTo("PONG");
			}
			finally {
				client.shutdown();
			}
			assertThat(direct.call("GET", key)).as("never sent").isNull();
		}
	}

	private static RedisClient client(TcpProxy proxy, Duration timeout, AtomicInteger asked) {
		RedisClient client = RedisClient
			.create(RedisURI.builder().withHost(RedisServer.HOST).withPort(proxy.port()).withTimeout(timeout).build());
		// as Spring's client configuration does: commands time out after the timeout
		client.setOptions(ClientOptions.builder().timeoutOptions(TimeoutOptions.enabled()).replayFilter((command) -> {
			if (command.getType() == CommandType.INCR) {
				asked.incrementAndGet();
				return true;
			}
			return false;
		}).build());
		return client;
	}

}
