package io.github.redkit.testsupport;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

class RedisServersTests {

	@Test
	void standaloneAnswersAndReportsItsVersion() {
		RedisServer redis = RedisServers.standalone();
		try (RespClient client = redis.client(redis.port())) {
			assertThat(client.call("PING")).isEqualTo("PONG");
		}
		assertThat(redis.version()).matches("\\d+\\.\\d+\\.\\d+");
		assertThat(redis.springProperties()).contains("spring.data.redis.port=" + redis.port());
	}

	@Test
	void thePooledTopologysPropertiesEnableThePoolOfItsFactorysSize() {
		String[] server = RedisServers.standalone().springProperties();
		assertThat(RedisTopology.STANDALONE.springProperties()).containsExactly(server);
		assertThat(RedisTopology.POOLED.springProperties()).as("an application on pooled connections")
			.startsWith(server)
			.contains("spring.data.redis.lettuce.pool.enabled=true",
					"spring.data.redis.lettuce.pool.max-active=" + RedisServer.POOL_SIZE);
	}

	@Test
	void clusterServesKeysOfEverySlotThroughSpringDataRedis() {
		RedisServer redis = RedisServers.cluster();
		assertThat(redis.isCluster()).isTrue();
		assertThat(redis.ports()).hasSize(3);
		LettuceConnectionFactory factory = redis.createConnectionFactory();
		try {
			StringRedisTemplate template = new StringRedisTemplate(factory);
			IntStream.range(0, 100).forEach((i) -> template.opsForValue().set("servers-test:" + i, "v" + i));
			assertThat(template.opsForValue().get("servers-test:42")).isEqualTo("v42");
			long keysOnNodes = redis.callOnEveryNode("DBSIZE")
				.stream()
				.mapToLong((n) -> (Long) n)
				.filter((n) -> n > 0)
				.count();
			assertThat(keysOnNodes).as("keys spread over every master").isEqualTo(3);
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void oldestIsRedis62() {
		assertThat(RedisServers.oldest().version()).startsWith("6.2.");
	}

	@ParameterizedTest
	@CsvSource({ "redis-8, 8.0.", "valkey-8, Valkey 8.1.", "valkey-9, Valkey 9.1." })
	void namedServersReportTheirVersion(String name, String version) {
		Assumptions.assumeTrue(RedisServers.available(name),
				() -> "no " + name + " server here: .ci/servers fetches Debian's package");
		RedisServer redis = RedisServers.named(name);
		try (RespClient client = redis.client(redis.port())) {
			assertThat(client.call("PING")).isEqualTo("PONG");
		}
		assertThat(redis.version()).startsWith(version);
	}

	@Test
	void topologiesAreSelectedByName() {
		String previous = System.getProperty(RedisTopology.SELECTION_PROPERTY);
		try {
			System.setProperty(RedisTopology.SELECTION_PROPERTY, "default");
			assertThat(RedisTopology.selected(Exercises.SCRIPTS)).containsExactly(RedisTopology.STANDALONE,
					RedisTopology.CLUSTER);
			assertThat(RedisTopology.selected(Exercises.CONNECTION)).as("pooled beside standalone")
				.containsExactly(RedisTopology.STANDALONE, RedisTopology.POOLED, RedisTopology.CLUSTER);
			System.setProperty(RedisTopology.SELECTION_PROPERTY, "all");
			// Valkey 8.1 only where Valkey 9.1 is missing: the two differ in no command
			// Redkit sends but DELIFEQ, which standalone Redis runs without (CI time)
			boolean valkey9 = RedisServers.available("valkey-9");
			List<RedisTopology> servers = Stream
				.of(RedisTopology.REDIS_8, RedisTopology.VALKEY_8, RedisTopology.VALKEY_9)
				.filter((topology) -> RedisServers
					.available(topology.name().toLowerCase(Locale.ROOT).replace('_', '-')))
				.filter((topology) -> topology != RedisTopology.VALKEY_8 || !valkey9)
				.toList();
			assertThat(RedisTopology.selected(Exercises.SCRIPTS))
				.as("every server family and a cluster, but the servers this machine lacks")
				.containsExactlyElementsOf(Stream
					.concat(Stream.of(RedisTopology.STANDALONE, RedisTopology.CLUSTER, RedisTopology.OLDEST),
							servers.stream())
					.toList());
			assertThat(RedisTopology.selected(Exercises.CONNECTION))
				.as("the pool and Sentinel, the same binary as standalone")
				.containsExactly(RedisTopology.STANDALONE, RedisTopology.POOLED, RedisTopology.CLUSTER,
						RedisTopology.SENTINEL);
			assertThat(RedisTopology.selected(Exercises.BOTH)).hasSize(5 + servers.size())
				.containsExactlyElementsOf(RedisTopology.selected());
			System.setProperty(RedisTopology.SELECTION_PROPERTY, "sentinel, standalone");
			assertThat(RedisTopology.selected(Exercises.CONNECTION)).containsExactly(RedisTopology.STANDALONE,
					RedisTopology.POOLED, RedisTopology.SENTINEL);
			System.setProperty(RedisTopology.SELECTION_PROPERTY, "valkey-8,valkey-9");
			assertThat(RedisTopology.selected(Exercises.SCRIPTS)).as("named, Valkey 8.1 runs beside 9.1")
				.containsExactly(RedisTopology.VALKEY_8, RedisTopology.VALKEY_9);
			System.setProperty(RedisTopology.SELECTION_PROPERTY, "standalone,galaxy");
			assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(RedisTopology::selected)
				.withMessageContaining("galaxy")
				.withMessageContaining("sentinel");
		}
		finally {
			if (previous != null) {
				System.setProperty(RedisTopology.SELECTION_PROPERTY, previous);
			}
			else {
				System.clearProperty(RedisTopology.SELECTION_PROPERTY);
			}
		}
	}

	@Test
	void commandStatsCountCommandsBetweenSnapshots() {
		RedisServer redis = RedisServers.standalone();
		try (RespClient client = redis.client(redis.port())) {
			CommandStats before = redis.commandStats();
			client.call("SET", "stats-test", "1");
			client.call("INCR", "stats-test");
			client.call("INCR", "stats-test");
			CommandStats used = redis.commandStats().since(before);
			assertThat(used.calls("incr")).isEqualTo(2);
			assertThat(used.calls("set")).isEqualTo(1);
			assertThat(used.total()).isEqualTo(3);
		}
	}

	@Test
	void commandLogTellsClientCommandsFromScriptCommands() {
		RedisServer redis = RedisServers.standalone();
		try (RespClient client = redis.client(redis.port())) {
			CommandLog log = CommandLog.record(redis, () -> {
				client.call("EVAL", "redis.call('INCR', KEYS[1]); return redis.call('INCR', KEYS[1])", "1", "log-test");
				client.call("GET", "log-test");
			});
			assertThat(log.roundTrips()).isEqualTo(2);
			assertThat(log.scriptCommands()).hasSize(2).allMatch((command) -> command.startsWith("\"incr\""));
			assertThat(log.roundTrips((command) -> command.startsWith("\"eval\""))).isEqualTo(1);
		}
	}

	@Test
	void dedicatedServerCanBeStoppedStartedPausedAndResumed() {
		try (RedisServer redis = RedisServers.startStandalone()) {
			redis.stop();
			assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> redis.client(redis.port()).call("PING"));
			redis.start();
			redis.pause();
			redis.resume();
			try (RespClient client = redis.client(redis.port())) {
				assertThat(client.call("PING")).isEqualTo("PONG");
			}
		}
	}

	@Test
	void embeddedBinaryRunsWhenNoRedisIsInstalled() {
		Optional<Path> embedded = RedisBinary.embedded();
		assertThat(embedded).as("embedded-redis ships a binary for this platform").isPresent();
		try (RedisServer redis = ProcessRedisServer.standalone(embedded.get())) {
			assertThat(redis.version()).startsWith("6.2");
		}
	}

}
