package io.github.redkit.testsupport;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TcpProxy#cutAfterNextWrite()} (and its aimed form) against a real server and a
 * real Lettuce client: the at-least-once delivery that every state-changing script must
 * survive.
 */
class TcpProxyCutAfterWriteTests {

	@Test
	void lettuceAppliesAPlainIncrTwiceAfterACutAfterTheWrite() {
		RedisServer redis = RedisServers.standalone();
		String key = "cut-after-write:" + UUID.randomUUID();
		try (TcpProxy proxy = TcpProxy.start(redis.port()); RespClient direct = redis.client(redis.port())) {
			RedisClient client = RedisClient.create(RedisURI.builder()
				.withHost(RedisServer.HOST)
				.withPort(proxy.port())
				.withTimeout(Duration.ofSeconds(10))
				.build());
			try (StatefulRedisConnection<String, String> connection = client.connect()) {
				RedisCommands<String, String> commands = connection.sync();
				assertThat(commands.ping()).isEqualTo("PONG");
				proxy.cutAfterNextWrite();
				// the first INCR's answer (1) is dropped; Lettuce reconnects and sends it
				// again: the caller sees the second answer
				assertThat(commands.incr(key)).isEqualTo(2);
				assertThat(proxy.cutsAfterWrite()).isEqualTo(1);
			}
			finally {
				client.shutdown();
			}
			assertThat(direct.call("GET", key)).as("applied twice").isEqualTo("2");
			direct.call("DEL", key);
		}
	}

	@Test
	void anAimedCutLetsOtherRequestsThroughAndCutsAfterTheOneItWaitsFor() {
		RedisServer redis = RedisServers.standalone();
		String other = "cut-after-write:" + UUID.randomUUID();
		String aimed = "cut-after-write:aimed:" + UUID.randomUUID();
		try (TcpProxy proxy = TcpProxy.start(redis.port()); RespClient direct = redis.client(redis.port())) {
			RedisClient client = RedisClient.create(RedisURI.builder()
				.withHost(RedisServer.HOST)
				.withPort(proxy.port())
				.withTimeout(Duration.ofSeconds(10))
				.build());
			try (StatefulRedisConnection<String, String> connection = client.connect()) {
				RedisCommands<String, String> commands = connection.sync();
				proxy.cutAfterNextWrite(aimed.getBytes(StandardCharsets.UTF_8));
				assertThat(commands.incr(other)).isEqualTo(1);
				assertThat(proxy.cutsAfterWrite()).isZero();
				assertThat(commands.incr(aimed)).as("sent again").isEqualTo(2);
				assertThat(proxy.cutsAfterWrite()).isEqualTo(1);
				assertThat(commands.incr(aimed)).as("one cut only").isEqualTo(3);
			}
			finally {
				client.shutdown();
			}
			assertThat(direct.call("GET", other)).isEqualTo("1");
			direct.call("DEL", other, aimed);
		}
	}

	@Test
	void onlyTheNextRequestIsCut() {
		RedisServer redis = RedisServers.standalone();
		String key = "cut-after-write:" + UUID.randomUUID();
		try (TcpProxy proxy = TcpProxy.start(redis.port()); RespClient direct = redis.client(redis.port())) {
			RedisClient client = RedisClient.create(RedisURI.builder()
				.withHost(RedisServer.HOST)
				.withPort(proxy.port())
				.withTimeout(Duration.ofSeconds(10))
				.build());
			try (StatefulRedisConnection<String, String> connection = client.connect()) {
				RedisCommands<String, String> commands = connection.sync();
				assertThat(commands.incr(key)).isEqualTo(1);
				assertThat(commands.incr(key)).isEqualTo(2);
				assertThat(proxy.cutsAfterWrite()).isZero();
			}
			finally {
				client.shutdown();
			}
			assertThat(direct.call("GET", key)).isEqualTo("2");
			direct.call("DEL", key);
		}
	}

}
