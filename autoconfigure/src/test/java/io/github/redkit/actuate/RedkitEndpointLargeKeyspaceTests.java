package io.github.redkit.actuate;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import io.github.redkit.testsupport.LockRecords;
import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.async.RedisKeyAsyncCommands;
import io.lettuce.core.api.async.RedisStringAsyncCommands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Listing locks among 20,000 keys, a hundred per {@code SCAN} (the 200 calls a listing of
 * 200,000 keys makes with the endpoint's default count of 1,000): the pages together find
 * exactly the locks held, none of the look-alike keys; on a cluster too, where the pages
 * walk every master in turn. The filler keys are deleted afterwards: the servers are
 * shared by every suite of the JVM. How a page keeps its time bound is judged in
 * {@link RedkitEndpointScanTimeoutTests}, by the calls a page sends rather than by a
 * clock (a page's wall time, asserted here under 250 ms, failed on a machine at load 30).
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.SCRIPTS)
class RedkitEndpointLargeKeyspaceTests {

	@Parameter
	RedisTopology topology;

	private static final int KEYS = 20_000;

	private static final byte[] ONE = { '1' };

	private static final int LOCKS = 37;

	// a time bound no loaded machine reaches: each page's SCAN calls and its locks' read
	// end on their own (at 100 ms the read of a page's locks timed out at load 30); the
	// bound itself is judged in RedkitEndpointScanTimeoutTests
	private static final Duration DEADLINE = Duration.ofSeconds(10);

	private final String prefix = "redkit-test-" + UUID.randomUUID();

	private ApplicationContextRunner runner() {
		return EndpointApplications.runner(this.prefix, this.topology, LockAutoConfiguration.class)
			.withPropertyValues("redkit.endpoint.scan-timeout=" + DEADLINE.toMillis() + "ms",
					"redkit.endpoint.scan-count=100");
	}

	@Test
	void pagesThroughLocksAmongTwentyThousandKeys() {
		runner().run((context) -> {
			RedisConnectionFactory connectionFactory = context.getBean(RedisConnectionFactory.class);
			List<LockHandle> handles = new ArrayList<>();
			try {
				send(connectionFactory, false);
				DistributedLocks locks = context.getBean(DistributedLocks.class);
				for (int i = 0; i < LOCKS; i++) {
					handles.add(locks.tryLock("job-" + i, Duration.ZERO, Duration.ofMinutes(2)).orElseThrow());
				}
				pageThroughTheLocks(context);
			}
			finally {
				// the server is shared: 20,000 keys left behind would make every later
				// SCAN of this JVM walk them
				handles.forEach(LockHandle::close);
				send(connectionFactory, true);
			}
		});
	}

	private void pageThroughTheLocks(AssertableApplicationContext context) {
		Set<String> held = new HashSet<>();
		for (int i = 0; i < LOCKS; i++) {
			held.add("job-" + i);
		}
		String token = LockRecords.holder(context.getBean(StringRedisTemplate.class), this.prefix + ":lock:{job-0}");
		assertThat(token).isNotBlank();
		RedkitEndpoint endpoint = context.getBean(RedkitEndpoint.class);
		List<String> found = new ArrayList<>();
		String cursor = null;
		int pages = 0;
		do {
			Map<?, ?> page = (Map<?, ?>) endpoint.section("locks", cursor, 10);
			for (Object lock : (List<?>) page.get("locks")) {
				found.add((String) ((Map<?, ?>) lock).get("key"));
				assertThat(lock.toString()).doesNotContain(token);
			}
			assertThat((List<?>) page.get("locks")).hasSizeLessThanOrEqualTo(10);
			cursor = (String) page.get("cursor");
			pages++;
		}
		while (!"0".equals(cursor));
		assertThat(new HashSet<>(found)).isEqualTo(held);
		assertThat(pages).as("paged").isGreaterThan(1);
	}

	// look-alikes: lock fencing counters and other capabilities' keys, sent (then
	// deleted) without waiting for each answer (a cluster connection routes each to its
	// master)
	@SuppressWarnings("unchecked")
	private void send(RedisConnectionFactory connectionFactory, boolean delete) {
		try (RedisConnection connection = connectionFactory.getConnection()) {
			Object commands = connection.getNativeConnection();
			List<RedisFuture<?>> sent = new ArrayList<>(KEYS);
			for (int i = 0; i < KEYS; i++) {
				String key = (i % 2 == 0) ? this.prefix + ":lock:{filler-" + i + "}:fence"
						: this.prefix + ":queue:{filler-" + (i % 1000) + "}:" + i;
				byte[] raw = key.getBytes(StandardCharsets.UTF_8);
				sent.add(delete ? ((RedisKeyAsyncCommands<byte[], byte[]>) commands).del(raw)
						: ((RedisStringAsyncCommands<byte[], byte[]>) commands).set(raw, ONE, SetArgs.Builder.ex(120)));
			}
			assertThat(LettuceFutures.awaitAll(Duration.ofSeconds(30), sent.toArray(RedisFuture[]::new))).isTrue();
		}
	}

}
