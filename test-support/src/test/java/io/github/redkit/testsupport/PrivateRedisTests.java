package io.github.redkit.testsupport;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;
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

	private static @Nullable RedisServer ownedByATest;

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
	@Order(2)
	void aParametersServerIsClosedOnceItsTestIsDone() {
		RedisServer closed = ownedByATest;
		assertThat(closed).as("the previous test ran first").isNotNull();
		assertThatRuntimeException()
			.isThrownBy(() -> RespClient.connect(RedisServer.HOST, closed.port(), Duration.ofMillis(500)).close());
	}

}
