package io.github.redkit.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.github.redkit.ratelimit.RateLimitReservation;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.testsupport.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Charging what a call really used over 1,000 keys: each call takes an estimate of 2
 * permits up front and settles with 1, so the unused permit is given back. The floor is a
 * raw fixed window counted up and down (two commands); Bucket4j consumes 2 and adds a
 * token back (its refund). Redisson's RRateLimiter cannot give permits back. The limits
 * are high enough that every call is allowed.
 */
final class RateLimitSettleSuite {

	private static final int ESTIMATE = 2;

	private static final int USED = 1;

	private RateLimitSettleSuite() {
	}

	static Suite create() {
		return new Suite("rate limit, charge after",
				List.of(RawIncrDecr::new, (redis) -> new RedkitReserve(redis, USED),
						(redis) -> new RedkitReserve(redis, ESTIMATE), Bucket4jRefund::new));
	}

	/** The naive pattern: a fixed window counted up by the estimate, down by the rest. */
	static final class RawIncrDecr implements Contender {

		private final ConfigurableApplicationContext context;

		private final StringRedisTemplate template;

		RawIncrDecr(RedisServer redis) {
			this.context = Clients.springContext(redis, Map.of());
			this.template = this.context.getBean(StringRedisTemplate.class);
		}

		@Override
		public String name() {
			return "raw INCRBY + DECRBY, 1 fixed window (reference)";
		}

		@Override
		public void operate(int thread, long iteration) {
			String key = Keys.of(thread, iteration) + ":" + System.currentTimeMillis() / 1000;
			Long count = this.template.opsForValue().increment(key, ESTIMATE);
			if (count != null && count > RateLimitSuite.LIMIT) {
				throw new IllegalStateException("unexpected refusal");
			}
			this.template.opsForValue().decrement(key, ESTIMATE - USED);
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	/** Redkit's reservation on 3 sliding windows, settled with what the call used. */
	static final class RedkitReserve implements Contender {

		private final ConfigurableApplicationContext context;

		private final RateLimiter limiter;

		private final int used;

		RedkitReserve(RedisServer redis, int used) {
			this.context = Clients.springContext(redis, RateLimitSuite.LIMITS);
			this.limiter = this.context.getBean(RateLimiter.class);
			this.used = used;
		}

		@Override
		public String name() {
			return "Redkit reserve " + ESTIMATE + " + settle " + this.used + ", 3 sliding windows"
					+ ((this.used == ESTIMATE) ? " (nothing to settle)" : "");
		}

		@Override
		public void operate(int thread, long iteration) {
			RateLimitReservation reservation = this.limiter.reserve("api", List.of(Keys.of(thread, iteration)),
					ESTIMATE);
			if (!reservation.allowed() || !reservation.settle(this.used)) {
				throw new IllegalStateException("unexpected refusal or failed settlement");
			}
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	/** Bucket4j's refund: consume the estimate, add back the tokens not used. */
	static final class Bucket4jRefund implements Contender {

		private final RedisClient client;

		private final BucketProxy[] buckets = new BucketProxy[Keys.COUNT];

		Bucket4jRefund(RedisServer redis) {
			this.client = RedisClient.create(RedisURI.create(RedisServer.HOST, redis.port()));
			ProxyManager<byte[]> proxies = Bucket4jLettuce.casBasedBuilder(this.client).build();
			BucketConfiguration configuration = BucketConfiguration.builder()
				.addLimit(Bandwidth.simple(RateLimitSuite.LIMIT, Duration.ofSeconds(1)))
				.addLimit(Bandwidth.simple(RateLimitSuite.LIMIT, Duration.ofMinutes(1)))
				.addLimit(Bandwidth.simple(RateLimitSuite.LIMIT, Duration.ofHours(1)))
				.build();
			for (int i = 0; i < Keys.COUNT; i++) {
				this.buckets[i] = proxies.builder()
					.build(("settle:" + i).getBytes(StandardCharsets.UTF_8), () -> configuration);
			}
		}

		@Override
		public String name() {
			return "Bucket4j consume " + ESTIMATE + " + addTokens " + (ESTIMATE - USED) + ", 3 limits";
		}

		@Override
		public void operate(int thread, long iteration) {
			BucketProxy bucket = this.buckets[Keys.index(thread, iteration)];
			if (!bucket.tryConsume(ESTIMATE)) {
				throw new IllegalStateException("unexpected refusal");
			}
			bucket.addTokens(ESTIMATE - USED);
		}

		@Override
		public void close() {
			this.client.shutdown();
		}

	}

}
