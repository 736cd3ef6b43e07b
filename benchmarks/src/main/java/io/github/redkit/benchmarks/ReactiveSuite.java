package io.github.redkit.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.ReactiveDistributedLocks;
import io.github.redkit.lock.internal.DefaultReactiveDistributedLocks;
import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.ratelimit.ReactiveRateLimiter;
import io.github.redkit.ratelimit.internal.DefaultReactiveRateLimiter;
import io.github.redkit.testsupport.RedisServer;
import reactor.core.publisher.Mono;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/**
 * The reactive rate limiter and lock against their blocking faces and against raw
 * reactive Spring Data Redis: one fixed window of {@link RateLimitSuite#LIMIT} per second
 * over {@link Keys#COUNT} keys (every call allowed), and acquire + release of uncontended
 * locks. Reactive contenders keep the run's thread count of operations in flight from one
 * subscription ({@code flatMap} with that concurrency); blocking ones run that many
 * threads. The reference is the raw reactive {@code EVALSHA} of the rate-limit suite's
 * fixed-window script.
 */
final class ReactiveSuite {

	private static final RateLimitPolicy ONE_WINDOW = new RateLimitPolicy(RateLimitAlgorithm.FIXED_WINDOW,
			List.of(RateLimitWindow.of(RateLimitSuite.LIMIT, Duration.ofSeconds(1))));

	private ReactiveSuite() {
	}

	static Suite create() {
		return new Suite("reactive", List.of(RawReactiveScript::new, ReactiveLimiter::new, BlockingLimiter::new,
				ReactiveLock::new, BlockingLock::new, RawReactiveLock::new));
	}

	// distinct per thread, and the operations in flight of one subscription are
	// consecutive: no two take the same lock at once
	private static String lockKey(int thread, long iteration) {
		return "bench-lock:" + thread + ":" + (iteration % Keys.COUNT);
	}

	/**
	 * A Spring context with Redkit's auto-configuration and a reactive template on its
	 * connection factory.
	 */
	private abstract static class Spring implements Contender {

		final ConfigurableApplicationContext context;

		final ReactiveStringRedisTemplate reactive;

		Spring(RedisServer redis) {
			this.context = Clients.springContext(redis, Map.of());
			this.reactive = new ReactiveStringRedisTemplate(this.context.getBean(ReactiveRedisConnectionFactory.class));
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	static final class RawReactiveScript extends Spring implements ReactiveContender {

		private final String limit = Long.toString(RateLimitSuite.LIMIT);

		RawReactiveScript(RedisServer redis) {
			super(redis);
		}

		@Override
		public String name() {
			return "raw reactive EVALSHA, 1 fixed window (reference)";
		}

		@Override
		public Mono<?> operation(long iteration) {
			long window = System.currentTimeMillis() / 1000;
			return this.reactive
				.execute(RateLimitSuite.RawScript.FIXED_WINDOW, List.of(Keys.of(0, iteration) + ":" + window),
						List.of(this.limit, "1000"))
				.next();
		}

	}

	static final class ReactiveLimiter extends Spring implements ReactiveContender {

		private final ReactiveRateLimiter limiter;

		ReactiveLimiter(RedisServer redis) {
			super(redis);
			this.limiter = new DefaultReactiveRateLimiter(this.context.getBean(RateLimiter.class));
		}

		@Override
		public String name() {
			return "Redkit ReactiveRateLimiter, 1 fixed window";
		}

		@Override
		public Mono<?> operation(long iteration) {
			return this.limiter.tryAcquire("one", ONE_WINDOW, List.of(Keys.of(0, iteration)), 1)
				.doOnNext((decision) -> {
					if (!decision.allowed()) {
						throw new IllegalStateException("unexpected refusal");
					}
				});
		}

	}

	static final class BlockingLimiter extends Spring {

		private final RateLimiter limiter;

		BlockingLimiter(RedisServer redis) {
			super(redis);
			this.limiter = this.context.getBean(RateLimiter.class);
		}

		@Override
		public String name() {
			return "Redkit RateLimiter (blocking), 1 fixed window";
		}

		@Override
		public void operate(int thread, long iteration) {
			if (!this.limiter.tryAcquire("one", ONE_WINDOW, List.of(Keys.of(thread, iteration)), 1).allowed()) {
				throw new IllegalStateException("unexpected refusal");
			}
		}

	}

	static final class ReactiveLock extends Spring implements ReactiveContender {

		private final ReactiveDistributedLocks locks;

		ReactiveLock(RedisServer redis) {
			super(redis);
			this.locks = new DefaultReactiveDistributedLocks(this.context.getBean(DistributedLocks.class));
		}

		@Override
		public String name() {
			return "Redkit ReactiveDistributedLocks.tryLock + releaseAsync";
		}

		@Override
		public Mono<?> operation(long iteration) {
			return this.locks.tryLock("bench", lockKey(0, iteration), Duration.ZERO, LockSuite.LEASE)
				.switchIfEmpty(Mono.error(() -> new IllegalStateException("unexpected contention")))
				.flatMap((handle) -> Mono.fromFuture(handle::releaseAsync));
		}

	}

	static final class BlockingLock extends Spring {

		private final DistributedLocks locks;

		BlockingLock(RedisServer redis) {
			super(redis);
			this.locks = this.context.getBean(DistributedLocks.class);
		}

		@Override
		public String name() {
			return "Redkit DistributedLocks.tryLock + close (blocking)";
		}

		@Override
		public void operate(int thread, long iteration) {
			LockHandle handle = this.locks.tryLock("bench", lockKey(thread, iteration), Duration.ZERO, LockSuite.LEASE)
				.orElseThrow(() -> new IllegalStateException("unexpected contention"));
			handle.close();
		}

	}

	static final class RawReactiveLock extends Spring implements ReactiveContender {

		RawReactiveLock(RedisServer redis) {
			super(redis);
		}

		@Override
		public String name() {
			return "raw reactive SET NX PX + compare-and-delete EVALSHA";
		}

		@Override
		public Mono<?> operation(long iteration) {
			String key = "raw-lock:" + lockKey(0, iteration);
			String token = Long.toHexString(ThreadLocalRandom.current().nextLong())
					+ Long.toHexString(ThreadLocalRandom.current().nextLong());
			return this.reactive.opsForValue()
				.setIfAbsent(key, token, LockSuite.LEASE)
				.flatMap((acquired) -> acquired
						? this.reactive.execute(LockSuite.RawSetNx.COMPARE_AND_DELETE, List.of(key), List.of(token))
							.next()
						: Mono.error(new IllegalStateException("unexpected contention")));
		}

	}

}
