package io.github.redkit.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.RedisServer;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * The cost curve of one contended lock: every benchmark thread waits for the same key,
 * takes it and gives it back at once, so the thread count is the number of waiters and
 * ops/s the hand-overs per second (a hand-over takes 1 / ops/s). On close each contender
 * prints the attempts Redis refused per acquisition: with one wake-up per release it
 * stays near the two attempts a waiter makes before it sleeps, however many wait.
 */
final class LockContentionSuite {

	private static final String KEY = "contended";

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final Duration LEASE = Duration.ofSeconds(30);

	private LockContentionSuite() {
	}

	static Suite create() {
		return new Suite("lock hand-over (one key, threads = waiters)",
				java.util.List.of(RedkitContended::new, RedissonContended::new));
	}

	static final class RedkitContended implements Contender {

		private final ConfigurableApplicationContext context;

		private final DistributedLocks locks;

		private final RedisServer redis;

		private final CommandStats before;

		private final AtomicLong acquired = new AtomicLong();

		RedkitContended(RedisServer redis) {
			this.redis = redis;
			this.context = Clients.springContext(redis);
			this.locks = this.context.getBean(DistributedLocks.class);
			this.before = redis.commandStats();
		}

		@Override
		public String name() {
			return "Redkit tryLock(wait) + close";
		}

		@Override
		public void operate(int thread, long iteration) {
			this.locks.tryLock(KEY, WAIT, LEASE).ifPresent((handle) -> {
				this.acquired.incrementAndGet();
				handle.close();
			});
		}

		@Override
		public void close() {
			CommandStats used = this.redis.commandStats().since(this.before);
			// a refused attempt is the only one that runs PTTL
			System.out.printf("  %-50s refused attempts per acquisition %.2f, publishes per release %.2f%n", name(),
					(double) used.calls("pttl") / Math.max(1, this.acquired.get()),
					(double) used.calls("publish") / Math.max(1, this.acquired.get()));
			this.context.close();
		}

	}

	static final class RedissonContended implements Contender {

		private final RedissonClient redisson;

		RedissonContended(RedisServer redis) {
			this.redisson = Clients.redisson(redis);
		}

		@Override
		public String name() {
			return "Redisson RLock.tryLock(wait, lease) + unlock";
		}

		@Override
		public void operate(int thread, long iteration) {
			RLock lock = this.redisson.getLock("redisson-" + KEY);
			try {
				if (lock.tryLock(WAIT.toMillis(), LEASE.toMillis(), TimeUnit.MILLISECONDS)) {
					lock.unlock();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		@Override
		public void close() {
			this.redisson.shutdown();
		}

	}

}
