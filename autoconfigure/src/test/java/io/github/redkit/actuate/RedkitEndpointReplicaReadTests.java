package io.github.redkit.actuate;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.actuate.RedkitEndpointAutoConfiguration;
import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RespClient;
import io.github.redkit.testsupport.SentinelRedisServer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application that reads from replicas ({@code spring.data.redis.lettuce.read-from}):
 * Lettuce sends a read-only command such as {@code SCAN} to a replica the
 * {@code ReadFrom} picks, a different one from call to call, and a {@code SCAN} cursor of
 * one server means nothing on another (each has its own hash seed). A walk of the locks
 * still lists every lock: the listing reads the master.
 */
class RedkitEndpointReplicaReadTests {

	private static final int LOCKS = 2_500;

	private static final int PAGE = 10;

	private final String prefix = "redkit-test-" + UUID.randomUUID();

	@Test
	void aWalkOnAConnectionThatReadsFromAnyReplicaListsEveryLock(
			@PrivateRedis(sentinelReplicas = 2) SentinelRedisServer sentinel) {
		try (RespClient master = sentinel.client(sentinel.masterPort())) {
			for (int i = 0; i < LOCKS; i++) {
				master.call("SET", this.prefix + ":lock:{job-" + i + "}", "instance-1:" + i, "PX", "120000");
			}
			// every replica holds every lock before the walk
			assertThat(master.call("WAIT", "2", "10000")).isEqualTo(2L);
		}
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
					LockAutoConfiguration.class, RedkitEndpointAutoConfiguration.class))
			.withPropertyValues(sentinel.springProperties())
			.withPropertyValues("redkit.key-prefix=" + this.prefix, "management.endpoints.web.exposure.include=redkit",
					"spring.data.redis.lettuce.read-from=anyReplica", "redkit.endpoint.scan-count=100",
					"redkit.endpoint.scan-timeout=10s")
			.run((context) -> {
				RedkitEndpoint endpoint = context.getBean(RedkitEndpoint.class);
				List<String> found = new ArrayList<>();
				String cursor = null;
				int pages = 0;
				do {
					Map<?, ?> page = (Map<?, ?>) endpoint.section("locks", cursor, PAGE);
					((List<?>) page.get("locks")).forEach((lock) -> found.add((String) ((Map<?, ?>) lock).get("key")));
					cursor = (String) page.get("cursor");
					pages++;
				}
				while (!"0".equals(cursor) && pages < 2 * LOCKS);
				Set<String> expected = new HashSet<>();
				for (int i = 0; i < LOCKS; i++) {
					expected.add("job-" + i);
				}
				assertThat(new HashSet<>(found)).as("every lock, listed in %d pages", pages).isEqualTo(expected);
				assertThat(found).as("no lock listed twice").hasSize(LOCKS);
			});
	}

}
