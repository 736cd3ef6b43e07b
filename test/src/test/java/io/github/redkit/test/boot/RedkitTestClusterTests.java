package io.github.redkit.test.boot;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.testsupport.RespClient;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.data.redis.core.StringRedisTemplate;

import static io.github.redkit.test.boot.RedkitAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * On a Redis Cluster the reset removes Redkit's keys on every master, and the assertions
 * find the keys in their slots.
 */
@SpringBootTest(classes = GreetingApplication.class)
@RedkitTest(cluster = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedkitTestClusterTests {

	@Autowired
	private RateLimiter rateLimiter;

	@Autowired
	private DistributedLocks locks;

	@Autowired
	private StringRedisTemplate redis;

	@Autowired
	private RedkitTestRedis testRedis;

	@Test
	@Order(1)
	void firstTestLeavesKeysOnEveryMaster() {
		List<String> users = IntStream.range(0, 30).mapToObj((i) -> "user-" + i).toList();
		users.forEach((user) -> this.rateLimiter.tryAcquire("greetings", user));
		users.forEach((user) -> this.rateLimiter.tryAcquire("greetings", user));
		users.forEach((user) -> assertThat(this.rateLimiter).isRateLimited("greetings", user));
		assertThat(this.testRedis.server().ports()).allSatisfy((port) -> assertThat(redkitKeysOn(port)).isPositive());
		this.redis.opsForValue().set("app:kept:cluster", "yes");
	}

	@Test
	@Order(2)
	void secondTestFindsNoRedkitKeyOnAnyMaster() {
		assertThat(this.testRedis.server().ports()).allSatisfy((port) -> assertThat(redkitKeysOn(port)).isZero());
		assertThat(this.rateLimiter).isNotRateLimited("greetings", "user-7");
		assertThat(this.redis.opsForValue().getAndDelete("app:kept:cluster")).isEqualTo("yes");
		assertThat(this.testRedis.server()).isSameAs(RedisServers.cluster());
	}

	@Test
	@Order(3)
	void locksAreFoundInTheirSlots() {
		assertThat(this.locks).isNotHeld("order:42");
		try (LockHandle handle = this.locks.tryLock("order:42", Duration.ZERO, Duration.ofSeconds(30)).orElseThrow()) {
			assertThat(this.locks).isHeld("order:42").isNotHeld("order:43");
		}
		assertThat(this.locks).isNotHeld("order:42");
	}

	private long redkitKeysOn(int port) {
		try (RespClient client = this.testRedis.server().client(port)) {
			Object reply = client.call("SCAN", "0", "MATCH", "redkit:*", "COUNT", "100000");
			return ((List<?>) ((List<?>) reply).get(1)).size();
		}
	}

}
