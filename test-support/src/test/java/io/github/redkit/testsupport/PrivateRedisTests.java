package io.github.redkit.testsupport;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatRuntimeException;

@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PrivateRedisTests {

	@PrivateRedis
	static RedisServer first;

	@PrivateRedis
	static RedisServer second;

	@PrivateRedis(server = "second")
	static LettuceConnectionFactory secondFactory;

	@PrivateRedis(count = 2)
	static List<RedisServer> regions;

	@PrivateRedis(server = "regions")
	static List<LettuceConnectionFactory> regionFactories;

	@PrivateRedis(replica = true)
	static RedisNode node;

	private static @Nullable RedisServer ownedByATest;

	private static @Nullable RedisNode nodeOfATest;

	private static @Nullable RedisServer ofTheClass;

	/**
	 * A parameter resolved for the class: its server is the class's, so a test's own
	 * parameter must not land among it (closed only after the class).
	 * @param server the class's server
	 */
	@BeforeAll
	static void aParameterOfTheClass(@PrivateRedis RedisServer server) {
		ofTheClass = server;
	}

	@Test
	void eachFieldHasAServerOfItsOwnAndTheFactoryReachesTheNamedOne() {
		assertThat(first.port()).isNotEqualTo(second.port()).isNotEqualTo(RedisTopology.STANDALONE.server().port());
		new StringRedisTemplate(secondFactory).opsForValue().set("private-redis", "second");
		try (RespClient client = second.client(second.port())) {
			assertThat(client.call("GET", "private-redis")).isEqualTo("second");
		}
		try (RespClient client = first.client(first.port())) {
			assertThat(client.call("EXISTS", "private-redis")).isEqualTo(0L);
		}
	}

	@Test
	void aListHoldsItsCountOfServersAndAFactoryForEach() {
		assertThat(regions).hasSize(2);
		assertThat(regions.get(0).port()).isNotEqualTo(regions.get(1).port()).isNotIn(first.port(), second.port());
		assertThat(regionFactories).hasSize(2);
		for (int i = 0; i < 2; i++) {
			new StringRedisTemplate(regionFactories.get(i)).opsForValue().set("region", String.valueOf(i));
			try (RespClient client = regions.get(i).client(regions.get(i).port())) {
				assertThat(client.call("GET", "region")).isEqualTo(String.valueOf(i));
			}
		}
	}

	@Test
	@Order(1)
	void aParameterIsAServerOfTheTestsOwnWithItsArguments(
			@PrivateRedis(arguments = { "--maxmemory-policy", "allkeys-lru" }) RedisServer redis) {
		ownedByATest = redis;
		try (RespClient client = redis.client(redis.port())) {
			assertThat(client.call("CONFIG", "GET", "maxmemory-policy")).asString().contains("allkeys-lru");
		}
	}

	@Test
	@Order(4)
	void aParameterOfTheClassIsOpenForItsTests() {
		RedisServer server = ofTheClass;
		assertThat(server).isNotNull();
		assertThat(server.port()).isNotIn(first.port(), second.port());
		try (RespClient client = server.client(server.port())) {
			assertThat(client.call("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void aNodeFieldIsAFaultNodeOfTheClassWithItsReplica() {
		assertThat(node.port()).isNotIn(first.port(), second.port());
		assertThat(node.replicaPort()).isNotZero();
		try (RespClient client = node.client()) {
			client.call("SET", "node", "v");
			assertThat(client.call("WAIT", "1", "5000")).as("the replica in sync").isEqualTo(1L);
		}
	}

	@Test
	@Order(2)
	void aNodeParameterIsANodeOfTheTestsOwnWithAMovableClock(@PrivateRedis(movableClock = true) RedisNode clocked) {
		nodeOfATest = clocked;
		assertThat(clocked.clockMovable()).isTrue();
		try (RespClient client = clocked.client()) {
			long before = seconds(client);
			clocked.shiftClock(Duration.ofSeconds(100));
			assertThat(seconds(client) - before).isBetween(99L, 110L);
		}
	}

	@Test
	@Order(3)
	void theParametersServerAndNodeAreClosedOnceTheirTestsAreDone() {
		RedisServer server = ownedByATest;
		RedisNode node = nodeOfATest;
		assertThat(server).as("the server's test ran first").isNotNull();
		List<Integer> ports = (node != null) ? List.of(server.port(), node.port()) : List.of(server.port());
		// without libfaketime (or the embedded binary) the node's test is disabled
		assertThat(node != null || !RedisNode.movableClockAvailable()).as("the node's test ran first").isTrue();
		for (int port : ports) {
			assertThatRuntimeException()
				.isThrownBy(() -> RespClient.connect(RedisServer.HOST, port, Duration.ofMillis(500)).close());
		}
	}

	@Test
	void aSentinelParameterIsADeploymentOfTheTestsOwn(
			@PrivateRedis(sentinelDownAfterMillis = 500) SentinelRedisServer sentinel) {
		assertThat(sentinel.sentinelPorts()).hasSize(3);
		assertThat(sentinel.dataPorts()).hasSize(2).contains(sentinel.masterPort());
		try (RespClient client = sentinel.client(sentinel.sentinelPorts().get(0))) {
			assertThat(client.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", SentinelRedisServer.MASTER_NAME)).asString()
				.contains(String.valueOf(sentinel.masterPort()));
		}
	}

	private static long seconds(RespClient client) {
		List<?> time = (List<?>) Objects.requireNonNull(client.call("TIME"));
		return Long.parseLong(String.valueOf(time.get(0)));
	}

}
