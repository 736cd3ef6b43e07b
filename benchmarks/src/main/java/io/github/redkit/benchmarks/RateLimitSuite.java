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
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.ratelimit.RateLimited;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.ratelimit.internal.PreparedLimit;
import io.github.redkit.testsupport.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Rate-limit decisions over 1,000 keys: a raw one-window fixed-window script (the
 * physical reference), Redkit's RateLimiter bean and @RateLimited aspect (three sliding
 * windows), Bucket4j's Lettuce proxy manager (the same three limits in one bucket) and
 * Redisson's RRateLimiter (one rate: it supports no more). The limits are high enough
 * that every call is allowed, so each contender does its full work.
 */
final class RateLimitSuite {

	static final long LIMIT = 1_000_000_000L;

	private RateLimitSuite() {
	}

	static Suite create() {
		return new Suite("rate limit",
				List.of(RawScript::new, RawRedkitScript::new, RedkitBean::new, RedkitAspect::new,
						(redis) -> new RedkitOneWindow(redis, RateLimitAlgorithm.SLIDING_WINDOW),
						(redis) -> new RedkitOneWindow(redis, RateLimitAlgorithm.SLIDING_LOG), Bucket4j::new,
						RedissonRateLimiter::new));
	}

	static final Map<String, Object> LIMITS = Map.of("redkit.rate-limit.limits.api.windows[0].limit", LIMIT,
			"redkit.rate-limit.limits.api.windows[0].period", "1s", "redkit.rate-limit.limits.api.windows[1].limit",
			LIMIT, "redkit.rate-limit.limits.api.windows[1].period", "1m",
			"redkit.rate-limit.limits.api.windows[2].limit", LIMIT, "redkit.rate-limit.limits.api.windows[2].period",
			"1h");

	static final class RawScript implements Contender {

		static final RedisScript<Long> FIXED_WINDOW = new DefaultRedisScript<>("""
				local count = redis.call('INCR', KEYS[1])
				if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
				if count > tonumber(ARGV[1]) then return 0 end
				return 1
				""", Long.class);

		private final ConfigurableApplicationContext context;

		private final StringRedisTemplate template;

		private final String limit = Long.toString(LIMIT);

		RawScript(RedisServer redis) {
			this.context = Clients.springContext(redis, Map.of());
			this.template = this.context.getBean(StringRedisTemplate.class);
		}

		@Override
		public String name() {
			return "raw EVALSHA, 1 fixed window (reference)";
		}

		@Override
		public void operate(int thread, long iteration) {
			long window = System.currentTimeMillis() / 1000;
			this.template.execute(FIXED_WINDOW, List.of(Keys.of(thread, iteration) + ":" + window), this.limit, "1000");
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	/**
	 * Redkit's own sliding-window script sent raw: what the bean costs without its Java
	 * side, so the table tells the script's Redis cost from the client's. Its arguments
	 * are the ones the bean prepares for the same policy.
	 */
	static final class RawRedkitScript implements Contender {

		private static final RedisScript<byte[]> SLIDING_WINDOW = LuaScript
			.load("ratelimit_sliding_window", byte[].class)
			.redisScript();

		private final ConfigurableApplicationContext context;

		private final StringRedisTemplate template;

		private final byte[][] arguments = PreparedLimit.of("raw",
				RateLimitPolicy.slidingWindow(RateLimitWindow.of(LIMIT, Duration.ofSeconds(1)),
						RateLimitWindow.of(LIMIT, Duration.ofMinutes(1)),
						RateLimitWindow.of(LIMIT, Duration.ofHours(1))),
				new RedisKeyspace("raw"))
			.arguments(1);

		RawRedkitScript(RedisServer redis) {
			this.context = Clients.springContext(redis, Map.of());
			this.template = this.context.getBean(StringRedisTemplate.class);
			this.template.execute((RedisCallback<String>) (connection) -> connection.scriptingCommands()
				.scriptLoad(SLIDING_WINDOW.getScriptAsString().getBytes(StandardCharsets.UTF_8)));
		}

		@Override
		public String name() {
			return "raw EVALSHA of Redkit's 3-window sliding script";
		}

		@Override
		public void operate(int thread, long iteration) {
			byte[] key = ("raw:{" + Keys.of(thread, iteration) + "}").getBytes(StandardCharsets.UTF_8);
			this.template.execute((RedisCallback<byte[]>) (connection) -> connection.scriptingCommands()
				.evalSha(SLIDING_WINDOW.getSha1(), ReturnType.VALUE, 1, concat(key, this.arguments)));
		}

		@Override
		public void close() {
			this.context.close();
		}

		private static byte[][] concat(byte[] key, byte[][] arguments) {
			byte[][] keysAndArguments = new byte[arguments.length + 1][];
			keysAndArguments[0] = key;
			System.arraycopy(arguments, 0, keysAndArguments, 1, arguments.length);
			return keysAndArguments;
		}

	}

	static final class RedkitBean implements Contender {

		private final ConfigurableApplicationContext context;

		private final RateLimiter limiter;

		RedkitBean(RedisServer redis) {
			this.context = Clients.springContext(redis, LIMITS);
			this.limiter = this.context.getBean(RateLimiter.class);
		}

		@Override
		public String name() {
			return "Redkit RateLimiter bean, 3 sliding windows";
		}

		@Override
		public void operate(int thread, long iteration) {
			if (!this.limiter.tryAcquire("api", Keys.of(thread, iteration)).allowed()) {
				throw new IllegalStateException("unexpected refusal");
			}
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	/**
	 * One window of one algorithm through the bean, beside Redisson's one rate: 10,000
	 * per second (the largest limit a sliding log takes), far above what one of the 1,000
	 * keys sees, so every call is allowed and the log holds the last second's calls.
	 */
	static final class RedkitOneWindow implements Contender {

		private final ConfigurableApplicationContext context;

		private final RateLimiter limiter;

		private final RateLimitAlgorithm algorithm;

		private final RateLimitPolicy policy;

		RedkitOneWindow(RedisServer redis, RateLimitAlgorithm algorithm) {
			this.context = Clients.springContext(redis, Map.of());
			this.limiter = this.context.getBean(RateLimiter.class);
			this.algorithm = algorithm;
			this.policy = new RateLimitPolicy(algorithm,
					List.of(RateLimitWindow.of(RateLimitAlgorithm.SLIDING_LOG_MAX_LIMIT, Duration.ofSeconds(1))));
		}

		@Override
		public String name() {
			return "Redkit RateLimiter bean, 1 " + this.algorithm.id() + " window";
		}

		@Override
		public void operate(int thread, long iteration) {
			if (!this.limiter.tryAcquire("one", this.policy, List.of(Keys.of(thread, iteration)), 1).allowed()) {
				throw new IllegalStateException("unexpected refusal");
			}
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	static final class RedkitAspect implements Contender {

		private final ConfigurableApplicationContext context;

		private final LimitedService service;

		RedkitAspect(RedisServer redis) {
			this.context = Clients.springContext(redis, LIMITS, AspectConfiguration.class);
			this.service = this.context.getBean(LimitedService.class);
		}

		@Override
		public String name() {
			return "Redkit @RateLimited aspect, 3 sliding windows";
		}

		@Override
		public void operate(int thread, long iteration) {
			this.service.call(Keys.of(thread, iteration));
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class AspectConfiguration {

		@Bean
		LimitedService limitedService() {
			return new LimitedService();
		}

	}

	static class LimitedService {

		@RateLimited(value = "api", key = "#key")
		public void call(String key) {
		}

	}

	static final class Bucket4j implements Contender {

		private final RedisClient client;

		private final BucketProxy[] buckets = new BucketProxy[Keys.COUNT];

		Bucket4j(RedisServer redis) {
			this.client = RedisClient.create(RedisURI.create(RedisServer.HOST, redis.port()));
			ProxyManager<byte[]> proxies = Bucket4jLettuce.casBasedBuilder(this.client).build();
			BucketConfiguration configuration = BucketConfiguration.builder()
				.addLimit(Bandwidth.simple(LIMIT, Duration.ofSeconds(1)))
				.addLimit(Bandwidth.simple(LIMIT, Duration.ofMinutes(1)))
				.addLimit(Bandwidth.simple(LIMIT, Duration.ofHours(1)))
				.build();
			for (int i = 0; i < Keys.COUNT; i++) {
				this.buckets[i] = proxies.builder()
					.build(("bench:" + i).getBytes(StandardCharsets.UTF_8), () -> configuration);
			}
		}

		@Override
		public String name() {
			return "Bucket4j Lettuce CAS proxy, 3 limits";
		}

		@Override
		public void operate(int thread, long iteration) {
			this.buckets[Keys.index(thread, iteration)].tryConsume(1);
		}

		@Override
		public void close() {
			this.client.shutdown();
		}

	}

	static final class RedissonRateLimiter implements Contender {

		private final RedissonClient redisson;

		private final RRateLimiter[] limiters = new RRateLimiter[Keys.COUNT];

		RedissonRateLimiter(RedisServer redis) {
			this.redisson = Clients.redisson(redis);
			for (int i = 0; i < Keys.COUNT; i++) {
				this.limiters[i] = this.redisson.getRateLimiter("bench:" + i);
				this.limiters[i].trySetRate(RateType.OVERALL, LIMIT, Duration.ofSeconds(1));
			}
		}

		@Override
		public String name() {
			return "Redisson RRateLimiter, 1 rate";
		}

		@Override
		public void operate(int thread, long iteration) {
			this.limiters[Keys.index(thread, iteration)].tryAcquire();
		}

		@Override
		public void close() {
			this.redisson.shutdown();
		}

	}

}
