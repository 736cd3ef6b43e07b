package io.github.redkit.testsupport;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

class PrivateRedisTests {

	@PrivateRedis
	static RedisServer first;

	@PrivateRedis
	static RedisServer second;

	@PrivateRedis(server = "second")
	static LettuceConnectionFactory secondFactory;

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

}
