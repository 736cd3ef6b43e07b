package io.github.redkit.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.testsupport.RedisServer;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * Acquire + release of an uncontended lock, spread over {@link Keys#COUNT} keys: raw
 * {@code SET NX PX} + compare-and-delete (the reference), Redkit, Redisson {@code RLock}
 * and Spring Integration's {@code RedisLockRegistry}.
 */
final class LockSuite {

	static final Duration LEASE = Duration.ofSeconds(30);

	private LockSuite() {
	}

	static Suite create() {
		return new Suite("lock (acquire + release)",
				List.of(RawSetNx::new, RedkitLock::new, RedissonLock::new, SpringIntegrationLock::new));
	}

	/**
	 * Redkit with native commands on and off, beside the reference: on a server with
	 * {@code SET IFEQ} (Valkey 8.1, Redis 8.4) a release is that one command. Run it
	 * there with {@code --server=valkey-8}.
	 * @return the suite
	 */
	static Suite nativeRelease() {
		return new Suite("lock (acquire + release), native commands on and off", List.of(RawSetNx::new,
				(redis) -> new RedkitLock(redis, true), (redis) -> new RedkitLock(redis, false)));
	}

	/**
	 * The native-commands suite with, second, the raw pair whose release is
	 * {@code DELIFEQ} (Valkey 9): what a release that deletes the record would cost,
	 * which Redkit's does not (its record keeps the fencing token). Run it with
	 * {@code --server=valkey-9}.
	 * @return the suite
	 */
	static Suite deleteIfEqual() {
		return new Suite("lock (acquire + release), DELIFEQ beside native commands on and off",
				List.of(RawSetNx::new, RawSetNxDeleteIfEqual::new, (redis) -> new RedkitLock(redis, true),
						(redis) -> new RedkitLock(redis, false)));
	}

	static final class RawSetNx implements Contender {

		static final RedisScript<Long> COMPARE_AND_DELETE = new DefaultRedisScript<>(
				"if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0",
				Long.class);

		private final ConfigurableApplicationContext context;

		private final StringRedisTemplate template;

		RawSetNx(RedisServer redis) {
			this.context = Clients.springContext(redis);
			this.template = this.context.getBean(StringRedisTemplate.class);
		}

		@Override
		public String name() {
			return "raw SET NX PX + compare-and-delete EVALSHA";
		}

		@Override
		public void operate(int thread, long iteration) {
			String key = "raw-lock:" + Keys.of(thread, iteration);
			// not UUID.randomUUID(): its shared SecureRandom would slow the reference
			// down
			String token = Long.toHexString(ThreadLocalRandom.current().nextLong())
					+ Long.toHexString(ThreadLocalRandom.current().nextLong());
			if (Boolean.TRUE.equals(this.template.opsForValue().setIfAbsent(key, token, LEASE))) {
				this.template.execute(COMPARE_AND_DELETE, List.of(key), token);
			}
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	/**
	 * The raw pair with Valkey 9's {@code DELIFEQ} for the release: one command, no
	 * script.
	 */
	static final class RawSetNxDeleteIfEqual implements Contender {

		private static final ProtocolKeyword DELIFEQ = new ProtocolKeyword() {

			private final byte[] bytes = "DELIFEQ".getBytes(StandardCharsets.US_ASCII);

			@Override
			public byte[] getBytes() {
				return this.bytes;
			}

			@Override
			public String toString() {
				return "DELIFEQ";
			}

		};

		private final ConfigurableApplicationContext context;

		private final StringRedisTemplate template;

		RawSetNxDeleteIfEqual(RedisServer redis) {
			this.context = Clients.springContext(redis);
			this.template = this.context.getBean(StringRedisTemplate.class);
		}

		@Override
		public String name() {
			return "raw SET NX PX + DELIFEQ";
		}

		// Lettuce has no DELIFEQ, and Spring Data's connection reads its integer reply
		// as bytes: sent on the native connection with an integer output
		@SuppressWarnings("unchecked")
		private static Long deleteIfEqual(RedisConnection connection, String key, String token) {
			BaseRedisAsyncCommands<byte[], byte[]> commands = (BaseRedisAsyncCommands<byte[], byte[]>) connection
				.getNativeConnection();
			CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE)
				.addKey(key.getBytes(StandardCharsets.UTF_8))
				.add(token.getBytes(StandardCharsets.UTF_8));
			return commands.dispatch(DELIFEQ, new IntegerOutput<>(ByteArrayCodec.INSTANCE), args)
				.toCompletableFuture()
				.join();
		}

		@Override
		public void operate(int thread, long iteration) {
			String key = "raw-lock:" + Keys.of(thread, iteration);
			String token = Long.toHexString(ThreadLocalRandom.current().nextLong())
					+ Long.toHexString(ThreadLocalRandom.current().nextLong());
			if (Boolean.TRUE.equals(this.template.opsForValue().setIfAbsent(key, token, LEASE))) {
				this.template.execute((RedisCallback<Object>) (connection) -> deleteIfEqual(connection, key, token));
			}
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	static final class RedkitLock implements Contender {

		private final ConfigurableApplicationContext context;

		private final DistributedLocks locks;

		private final String name;

		RedkitLock(RedisServer redis) {
			this(Clients.springContext(redis), "Redkit DistributedLocks.tryLock + close");
		}

		RedkitLock(RedisServer redis, boolean nativeCommands) {
			this(Clients.springContext(redis, Map.of("redkit.native-commands", nativeCommands)),
					"Redkit DistributedLocks.tryLock + close, redkit.native-commands=" + nativeCommands);
		}

		private RedkitLock(ConfigurableApplicationContext context, String name) {
			this.context = context;
			this.locks = context.getBean(DistributedLocks.class);
			this.name = name;
		}

		@Override
		public String name() {
			return this.name;
		}

		@Override
		public void operate(int thread, long iteration) {
			this.locks.tryLock(Keys.of(thread, iteration), Duration.ZERO, LEASE).ifPresent(LockHandle::close);
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	static final class RedissonLock implements Contender {

		private final RedissonClient redisson;

		RedissonLock(RedisServer redis) {
			this.redisson = Clients.redisson(redis);
		}

		@Override
		public String name() {
			return "Redisson RLock.tryLock(0, lease) + unlock";
		}

		@Override
		public void operate(int thread, long iteration) {
			RLock lock = this.redisson.getLock("redisson-lock:" + Keys.of(thread, iteration));
			try {
				if (lock.tryLock(0, LEASE.toMillis(), TimeUnit.MILLISECONDS)) {
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

	static final class SpringIntegrationLock implements Contender {

		private final ConfigurableApplicationContext context;

		private final RedisLockRegistry registry;

		SpringIntegrationLock(RedisServer redis) {
			this.context = Clients.springContext(redis);
			this.registry = new RedisLockRegistry(this.context.getBean(RedisConnectionFactory.class), "si-lock",
					LEASE.toMillis());
		}

		@Override
		public String name() {
			return "Spring Integration RedisLockRegistry tryLock + unlock";
		}

		@Override
		public void operate(int thread, long iteration) {
			Lock lock = this.registry.obtain(Keys.of(thread, iteration));
			if (lock.tryLock()) {
				lock.unlock();
			}
		}

		@Override
		public void close() {
			this.registry.destroy();
			this.context.close();
		}

	}

}
