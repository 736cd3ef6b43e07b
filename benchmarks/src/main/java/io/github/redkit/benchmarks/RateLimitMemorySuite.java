package io.github.redkit.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConfigurationBuilder;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.github.redkit.autoconfigure.ratelimit.RateLimitProperties;
import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.testsupport.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * The contenders of the rate-limit memory benchmark: every Redkit algorithm (whatever
 * {@link RateLimitAlgorithm} holds), Bucket4j's Lettuce proxy manager and Redisson's
 * RRateLimiter, with one window (10 per minute) and with the three periods of
 * {@link RateLimitSuite} (Redisson supports one rate only). Every contender lets its
 * state expire, as a production set-up would: Redkit always does, Bucket4j with an
 * expiration strategy, Redisson with a keep-alive time.
 */
final class RateLimitMemorySuite {

	static final List<RateLimitWindow> ONE_WINDOW = List.of(RateLimitWindow.of(10, Duration.ofMinutes(1)));

	static final List<RateLimitWindow> THREE_WINDOWS = List.of(RateLimitWindow.of(10, Duration.ofSeconds(1)),
			RateLimitWindow.of(100, Duration.ofMinutes(1)), RateLimitWindow.of(1000, Duration.ofHours(1)));

	private static final String PEER_PREFIX = "ratelimit:mem:";

	private RateLimitMemorySuite() {
	}

	static List<Function<RedisServer, MemoryContender>> contenders() {
		List<Function<RedisServer, MemoryContender>> contenders = new ArrayList<>();
		for (List<RateLimitWindow> windows : List.of(ONE_WINDOW, THREE_WINDOWS)) {
			for (RateLimitAlgorithm algorithm : RateLimitAlgorithm.values()) {
				contenders.add((redis) -> new Redkit(redis, new RateLimitPolicy(algorithm, windows)));
			}
			contenders.add((redis) -> new Bucket4j(redis, windows));
			if (windows.size() == 1) {
				contenders.add((redis) -> new Redisson(redis, windows.get(0)));
			}
		}
		return contenders;
	}

	/**
	 * The algorithm a limit gets when its configuration names none.
	 * @return the default algorithm
	 */
	static RateLimitAlgorithm defaultAlgorithm() {
		return new RateLimitProperties.Limit().getAlgorithm();
	}

	static String describe(List<RateLimitWindow> windows) {
		return windows.stream()
			.map((window) -> window.limit() + "/" + period(window.period()))
			.collect(Collectors.joining(", "));
	}

	private static String period(Duration period) {
		if (period.toHoursPart() > 0 && period.toMinutesPart() == 0 && period.toSecondsPart() == 0) {
			return period.toHours() + "h";
		}
		if (period.toSecondsPart() == 0 && period.toMillisPart() == 0) {
			return period.toMinutes() + "m";
		}
		return period.toSeconds() + "s";
	}

	/**
	 * Redkit's RateLimiter bean with an explicit policy, so every algorithm is measured
	 * without configuring it by name. Failure mode {@code deny}: an error must not pass
	 * for an allowed call.
	 */
	static final class Redkit implements MemoryContender {

		private final ConfigurableApplicationContext context;

		private final RateLimiter limiter;

		private final RateLimitPolicy policy;

		Redkit(RedisServer redis, RateLimitPolicy policy) {
			this.context = Clients.springContext(redis,
					Map.of("redkit.rate-limit.failure-mode", "deny", "redkit.rate-limit.timeout", "10s"));
			this.limiter = this.context.getBean(RateLimiter.class);
			this.policy = policy;
		}

		@Override
		public String name() {
			RateLimitAlgorithm algorithm = this.policy.algorithm();
			return "Redkit " + algorithm.id() + ((algorithm == defaultAlgorithm()) ? " (default)" : "");
		}

		@Override
		public String windows() {
			return describe(this.policy.windows());
		}

		@Override
		public int acquire(String identifier, int calls) {
			List<String> keys = List.of(identifier);
			int allowed = 0;
			for (int i = 0; i < calls; i++) {
				allowed += this.limiter.tryAcquire("mem", this.policy, keys, 1).allowed() ? 1 : 0;
			}
			return allowed;
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	/**
	 * Bucket4j's compare-and-swap proxy manager on Lettuce, one bucket of the same limits
	 * per identifier, kept until it would be full again (plus a minute).
	 */
	static final class Bucket4j implements MemoryContender {

		private final List<RateLimitWindow> windows;

		private final RedisClient client;

		private final ProxyManager<byte[]> proxies;

		private final BucketConfiguration configuration;

		Bucket4j(RedisServer redis, List<RateLimitWindow> windows) {
			this.windows = windows;
			this.client = RedisClient.create(RedisURI.create(RedisServer.HOST, redis.port()));
			this.proxies = Bucket4jLettuce.casBasedBuilder(this.client)
				.expirationAfterWrite(
						ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofMinutes(1)))
				.build();
			ConfigurationBuilder builder = BucketConfiguration.builder();
			for (RateLimitWindow window : windows) {
				builder.addLimit(Bandwidth.simple(window.limit(), window.period()));
			}
			this.configuration = builder.build();
		}

		@Override
		public String name() {
			return "Bucket4j Lettuce CAS proxy";
		}

		@Override
		public String windows() {
			return describe(this.windows);
		}

		@Override
		public int acquire(String identifier, int calls) {
			byte[] key = (PEER_PREFIX + identifier).getBytes(StandardCharsets.UTF_8);
			int allowed = 0;
			for (int i = 0; i < calls; i++) {
				allowed += this.proxies.builder().build(key, () -> this.configuration).tryConsume(1) ? 1 : 0;
			}
			return allowed;
		}

		@Override
		public void close() {
			this.client.shutdown();
		}

	}

	/**
	 * Redisson's RRateLimiter, one per identifier: it must be given its rate
	 * ({@code trySetRate}, one more round trip) before the first acquire, and is kept two
	 * minutes after the last one.
	 */
	static final class Redisson implements MemoryContender {

		private final RateLimitWindow window;

		private final RedissonClient redisson;

		Redisson(RedisServer redis, RateLimitWindow window) {
			this.window = window;
			this.redisson = Clients.redisson(redis);
		}

		@Override
		public String name() {
			return "Redisson RRateLimiter";
		}

		@Override
		public String windows() {
			return describe(List.of(this.window));
		}

		@Override
		public int acquire(String identifier, int calls) {
			RRateLimiter limiter = this.redisson.getRateLimiter(PEER_PREFIX + identifier);
			limiter.trySetRate(RateType.OVERALL, this.window.limit(), this.window.period(), Duration.ofMinutes(2));
			int allowed = 0;
			for (int i = 0; i < calls; i++) {
				allowed += limiter.tryAcquire() ? 1 : 0;
			}
			return allowed;
		}

		@Override
		public void close() {
			this.redisson.shutdown();
		}

	}

}
