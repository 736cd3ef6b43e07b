package io.github.redkit.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.autoconfigure.region.RegionAutoConfiguration;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A rate limit marked global, seen through the endpoint of two regions, each on its own
 * real Redis server: the usage is what the limit decides on (every region's calls this
 * region has received), and a reset in one region zeroes the counts in both.
 */
class RedkitEndpointGlobalRateLimitTests {

	@PrivateRedis
	private static RedisServer eu;

	@PrivateRedis
	private static RedisServer us;

	private final String prefix = "redkit-test-" + UUID.randomUUID();

	private ApplicationContextRunner region(String name, RedisServer server, String peer, RedisServer peerServer) {
		return EndpointApplications
			.runner(this.prefix, EndpointAutoConfiguration.class, RegionAutoConfiguration.class,
					RateLimitAutoConfiguration.class)
			.withPropertyValues(server.springProperties())
			.withPropertyValues("redkit.regions.local=" + name,
					"redkit.regions.peers." + peer + ".url=redis://" + RedisServer.HOST + ":" + peerServer.port(),
					"redkit.regions.replication.interval=20ms", "redkit.rate-limit.failure-mode=deny",
					"redkit.rate-limit.limits.api.algorithm=sliding-window", "redkit.rate-limit.limits.api.global=true",
					"redkit.rate-limit.limits.api.windows[0].limit=5",
					"redkit.rate-limit.limits.api.windows[0].period=1h");
	}

	@Test
	void usageAndResetOfAGlobalLimitReadAndZeroWhatItCounts() {
		region("eu", eu, "us", us).run((euContext) -> region("us", us, "eu", eu).run((usContext) -> {
			RateLimiter euLimiter = euContext.getBean(RateLimiter.class);
			RateLimiter usLimiter = usContext.getBean(RateLimiter.class);
			RedkitEndpoint euEndpoint = euContext.getBean(RedkitEndpoint.class);
			RedkitEndpoint usEndpoint = usContext.getBean(RedkitEndpoint.class);
			// the first call may race the connection: with failure-mode deny it throws
			await().ignoreExceptions().until(() -> euLimiter.tryAcquire("api", "warm-up").allowed());
			await().ignoreExceptions().until(() -> usLimiter.tryAcquire("api", "warm-up").allowed());
			for (int i = 0; i < 3; i++) {
				assertThat(euLimiter.tryAcquire("api", "user/1").allowed()).isTrue();
			}
			for (int i = 0; i < 2; i++) {
				assertThat(usLimiter.tryAcquire("api", "user/1").allowed()).isTrue();
			}
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				assertThat(used(euEndpoint)).as("eu sees both regions' calls").isEqualTo(5);
				assertThat(used(usEndpoint)).as("us sees both regions' calls").isEqualTo(5);
			});
			assertThat(euLimiter.tryAcquire("api", "user/1").allowed()).as("what the usage shows refuses").isFalse();
			assertThat(euEndpoint.delete("ratelimits", new String[] { "api", "user", "1" }, null))
				.isEqualTo(Map.of("reset", true));
			assertThat(used(euEndpoint)).as("reset here").isZero();
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(used(usEndpoint)).as("reset in the peer once replicated").isZero());
			assertThat(usLimiter.tryAcquire("api", "user/1").allowed()).isTrue();
			assertThat(euLimiter.tryAcquire("api", "user/1").allowed()).isTrue();
			assertThat(euEndpoint.delete("ratelimits", new String[] { "api", "nobody" }, null))
				.isEqualTo(Map.of("reset", false));
		}));
	}

	private static long used(RedkitEndpoint endpoint) {
		Map<?, ?> usage = (Map<?, ?>) endpoint.detail("ratelimits", "api", new String[] { "user", "1" }, null, null);
		List<?> windows = (List<?>) usage.get("windows");
		return ((Number) ((Map<?, ?>) windows.get(0)).get("used")).longValue();
	}

}
