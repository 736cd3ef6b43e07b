package io.github.redkit.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.testsupport.CommandLog;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.testsupport.TcpProxy;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A page's time bound ({@code redkit.endpoint.scan-timeout}) on a Redis reached through a
 * link that holds or slows its answers, judged by what the page sent and returned rather
 * than by a clock, so that the machine's load cannot fail it: a load only makes each
 * {@code SCAN} slower, and so a page's calls fewer.
 */
class RedkitEndpointScanTimeoutTests {

	private static final Duration TIME_BOUND = Duration.ofMillis(200);

	private final String prefix = "redkit-test-" + UUID.randomUUID();

	private ApplicationContextRunner runner(TcpProxy link) {
		return EndpointApplications.runner(this.prefix, LockAutoConfiguration.class)
			.withPropertyValues("spring.data.redis.host=" + RedisServer.HOST, "spring.data.redis.port=" + link.port(),
					"redkit.endpoint.scan-timeout=" + TIME_BOUND.toMillis() + "ms", "redkit.endpoint.scan-count=10");
	}

	@Test
	void aPageWhoseFirstScanGoesUnansweredIsNotTheLastOne() {
		try (TcpProxy link = TcpProxy.start(RedisServers.standalone().port())) {
			runner(link).run((context) -> {
				List<LockHandle> handles = new ArrayList<>();
				try {
					DistributedLocks locks = context.getBean(DistributedLocks.class);
					for (int i = 0; i < 3; i++) {
						handles.add(locks.tryLock("job-" + i, Duration.ZERO, Duration.ofMinutes(2)).orElseThrow());
					}
					RedkitEndpoint endpoint = context.getBean(RedkitEndpoint.class);
					endpoint.section("locks", null, 1); // connected, the script loaded
					link.partition();
					Map<?, ?> unanswered;
					try {
						unanswered = (Map<?, ?>) endpoint.section("locks", null, 10);
					}
					finally {
						link.heal();
					}
					assertThat((List<?>) unanswered.get("locks")).isEmpty();
					assertThat(unanswered.get("complete")).as("the listing is done").isEqualTo(false);
					assertThat(unanswered.get("cursor")).isNotEqualTo("0");
					// the next page repeats the SCAN that went unanswered
					assertThat(walk(endpoint, (String) unanswered.get("cursor"))).containsExactlyInAnyOrder("job-0",
							"job-1", "job-2");
				}
				finally {
					handles.forEach(LockHandle::close);
				}
			});
		}
	}

	@Test
	void aPageSendsNoScanOnceItsTimeBoundHasPassed() {
		RedisServer redis = RedisServers.standalone();
		try (TcpProxy link = TcpProxy.start(redis.port())) {
			runner(link).run((context) -> {
				StringRedisTemplate redisTemplate = context.getBean(StringRedisTemplate.class);
				// no lock among them: a page would walk them all, 10 a SCAN
				List<String> fillers = new ArrayList<>();
				for (int i = 0; i < 2000; i++) {
					fillers.add(this.prefix + ":lock:{filler-" + i + "}:fence");
				}
				try {
					Map<String, String> values = new HashMap<>();
					fillers.forEach((key) -> values.put(key, "1"));
					redisTemplate.opsForValue().multiSet(values);
					RedkitEndpoint endpoint = context.getBean(RedkitEndpoint.class);
					endpoint.section("locks", null, 1); // connected
					// each SCAN through the link takes two delays at least, whatever the
					// load
					Duration delay = Duration.ofMillis(25);
					link.delay(delay);
					Map<?, ?>[] page = new Map<?, ?>[1];
					CommandLog log = CommandLog.record(redis,
							() -> page[0] = (Map<?, ?>) endpoint.section("locks", null, 10));
					link.delay(Duration.ZERO);
					long scans = log
						.roundTrips((command) -> command.startsWith("\"scan\"") && command.contains(this.prefix));
					// those answered before the time bound, and the one waited on at it
					assertThat(scans).isBetween(1L, TIME_BOUND.toMillis() / (2 * delay.toMillis()) + 1);
					assertThat(page[0].get("cursor")).isNotEqualTo("0");
				}
				finally {
					redisTemplate.delete(fillers);
				}
			});
		}
	}

	private static List<String> walk(RedkitEndpoint endpoint, String from) {
		List<String> found = new ArrayList<>();
		String cursor = from;
		for (int pages = 0; !"0".equals(cursor) && pages < 1000; pages++) {
			Map<?, ?> page = (Map<?, ?>) endpoint.section("locks", cursor, 10);
			((List<?>) page.get("locks")).forEach((lock) -> found.add((String) ((Map<?, ?>) lock).get("key")));
			cursor = (String) page.get("cursor");
		}
		return found;
	}

}
