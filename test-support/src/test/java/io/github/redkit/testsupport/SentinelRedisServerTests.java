package io.github.redkit.testsupport;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class SentinelRedisServerTests {

	@Test
	void clientsFindTheMasterThroughTheSentinelsAndFollowAFailover() {
		try (SentinelRedisServer redis = RedisServers.startSentinel(Duration.ofMillis(500))) {
			assertThat(redis.springProperties()).anyMatch((property) -> property
				.startsWith("spring.data.redis.sentinel.master=" + SentinelRedisServer.MASTER_NAME));
			LettuceConnectionFactory factory = redis.createConnectionFactory();
			try {
				StringRedisTemplate template = new StringRedisTemplate(factory);
				template.opsForValue().set("sentinel-test", "before");
				int oldMaster = redis.masterPort();
				await().atMost(Duration.ofSeconds(5)).until(() -> {
					try (RespClient replica = redis.client(redis.dataPorts().get(1))) {
						return "before".equals(replica.call("GET", "sentinel-test"));
					}
				});
				assertThat(redis.killMaster()).isEqualTo(oldMaster);
				int newMaster = redis.awaitFailover(oldMaster, Duration.ofSeconds(30));
				assertThat(newMaster).isEqualTo(redis.dataPorts().get(1));
				assertThat(redis.ports()).containsExactly(newMaster);
				// the same factory reconnects through the Sentinels to the promoted
				// replica
				await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> {
					template.opsForValue().set("sentinel-test", "after");
					assertThat(template.opsForValue().get("sentinel-test")).isEqualTo("after");
				});
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void commandStatsLeaveOutTheReplicasAcknowledgements() {
		try (SentinelRedisServer redis = RedisServers.startSentinel(Duration.ofMillis(500))) {
			CommandStats before = redis.commandStats();
			// a replica acknowledges its offset every second, whatever clients do, once
			// its first sync is done (which a loaded machine can delay for seconds)
			await().atMost(Duration.ofSeconds(30))
				.until(() -> redis.commandStats().calls("replconf") > before.calls("replconf"));
			assertThat(redis.commandStats().since(before).asMap()).doesNotContainKey("replconf");
		}
	}

}
