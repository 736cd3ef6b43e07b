package io.github.redkit.region.internal;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.ratelimit.ReactiveRateLimiter;
import io.github.redkit.ratelimit.internal.DefaultReactiveRateLimiter;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A limit marked global, decided through {@link ReactiveRateLimiter} on three real Redis
 * servers as three regions: the calls of every region count everywhere once shipped, and
 * a limit that is not global counts in its own region only.
 */
class GlobalReactiveRateLimitTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	@PrivateRedis(count = 3)
	private static List<RedisServer> servers;

	@PrivateRedis(server = "servers")
	private static List<LettuceConnectionFactory> factories;

	private final ThreeRegions three = new ThreeRegions(servers, factories);

	private final List<RegionReplicator> replicators = this.three.replicators(Duration.ofMillis(10));

	@AfterEach
	void stop() {
		this.replicators.forEach(RegionReplicator::stop);
		// the servers are the class's: the next test starts from empty regions
		this.three.flushAll();
	}

	@Test
	void callsOfEveryRegionCountEverywhereOnceShipped() {
		// a long period, so that nothing is forgotten while this test runs
		RateLimitPolicy hour = RateLimitPolicy.slidingWindow(RateLimitWindow.of(20, Duration.ofHours(1)));
		Map<String, ReactiveRateLimiter> regions = new LinkedHashMap<>();
		for (String name : List.of("eu", "us")) {
			RedisRateLimiter limiter = new RedisRateLimiter(this.three.runner(name), ThreeRegions.KEYSPACE,
					Map.of("api", hour, "local", hour),
					new RateLimitSettings(LimitFailureMode.DENY, TIMEOUT, Duration.ofSeconds(1)), RedkitMetrics.NONE,
					RedkitObservations.NONE, List.of(new GlobalRateLimitDecider(this.three.runner(name),
							new RegionOutbox(ThreeRegions.KEYSPACE, name, 1_000_000), Set.of("api"))));
			regions.put(name, new DefaultReactiveRateLimiter(limiter));
		}
		this.replicators.forEach(RegionReplicator::start);
		for (int i = 0; i < 20; i++) {
			assertThat(decide(regions.get("eu"), "api").allowed()).isTrue();
		}
		assertThat(decide(regions.get("eu"), "api").allowed()).isFalse();
		// the other region refuses once the calls are shipped: before, it allows only
		// what
		// it has not seen yet, never a whole limit of its own
		AtomicInteger allowed = new AtomicInteger();
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).until(() -> {
			boolean yes = decide(regions.get("us"), "api").allowed();
			if (yes) {
				allowed.incrementAndGet();
			}
			return !yes;
		});
		assertThat(allowed).as("calls allowed in the second region").hasValueLessThan(20);
		for (int i = 0; i < 20; i++) {
			assertThat(decide(regions.get("us"), "local").allowed()).as("local limits count in their region").isTrue();
		}
	}

	private static RateLimitDecision decide(ReactiveRateLimiter limiter, String limit) {
		RateLimitDecision decision = limiter.tryAcquire(limit, List.of("user-1"), 1).block(TIMEOUT);
		assertThat(decision).isNotNull();
		return decision;
	}

}
