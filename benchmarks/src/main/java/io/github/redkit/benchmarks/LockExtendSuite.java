package io.github.redkit.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.testsupport.RedisServer;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A held lock's extension, one lock per thread: the native {@code SET IFEQ PX} (the
 * floor, on servers that have it: Valkey 8.1, Redis 8.4), the compare-and-expire script
 * every server runs, and Redkit's {@code LockHandle.extend} with native commands on and
 * off. Run it on Valkey with {@code --server=valkey-8}.
 */
final class LockExtendSuite {

	static final Duration LEASE = Duration.ofSeconds(30);

	private static final byte[] LEASE_MILLIS = Long.toString(LEASE.toMillis()).getBytes(StandardCharsets.US_ASCII);

	private LockExtendSuite() {
	}

	static Suite create() {
		return new Suite("lock extension (a held lock's lease renewed)", List.of(RawSetIfEqual::new, RawScript::new,
				(redis) -> new RedkitExtend(redis, true), (redis) -> new RedkitExtend(redis, false)));
	}

	static final class RawSetIfEqual implements Contender {

		private final ConfigurableApplicationContext context;

		private final StringRedisTemplate template;

		private final Map<Integer, byte[]> held = new ConcurrentHashMap<>();

		RawSetIfEqual(RedisServer redis) {
			this.context = Clients.springContext(redis);
			this.template = this.context.getBean(StringRedisTemplate.class);
		}

		@Override
		public String name() {
			return "raw SET key token IFEQ token PX";
		}

		@Override
		public void operate(int thread, long iteration) {
			byte[] key = this.held.computeIfAbsent(thread, (t) -> {
				String name = "raw-extend:" + t;
				this.template.opsForValue().set(name, "token-" + t, LEASE);
				return name.getBytes(StandardCharsets.UTF_8);
			});
			byte[] token = ("token-" + thread).getBytes(StandardCharsets.UTF_8);
			this.template.execute((RedisCallback<Object>) (RedisConnection connection) -> connection.execute("SET", key,
					token, "IFEQ".getBytes(StandardCharsets.US_ASCII), token, "PX".getBytes(StandardCharsets.US_ASCII),
					LEASE_MILLIS));
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	static final class RawScript implements Contender {

		static final RedisScript<Long> COMPARE_AND_EXPIRE = new DefaultRedisScript<>(
				"if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end"
						+ " return 0",
				Long.class);

		private final ConfigurableApplicationContext context;

		private final StringRedisTemplate template;

		private final Map<Integer, List<String>> held = new ConcurrentHashMap<>();

		RawScript(RedisServer redis) {
			this.context = Clients.springContext(redis);
			this.template = this.context.getBean(StringRedisTemplate.class);
		}

		@Override
		public String name() {
			return "raw compare-and-PEXPIRE EVALSHA";
		}

		@Override
		public void operate(int thread, long iteration) {
			List<String> key = this.held.computeIfAbsent(thread, (t) -> {
				this.template.opsForValue().set("script-extend:" + t, "token-" + t, LEASE);
				return List.of("script-extend:" + t);
			});
			this.template.execute(COMPARE_AND_EXPIRE, key, "token-" + thread, Long.toString(LEASE.toMillis()));
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	static final class RedkitExtend implements Contender {

		private final ConfigurableApplicationContext context;

		private final DistributedLocks locks;

		private final boolean nativeCommands;

		private final Map<Integer, LockHandle> held = new ConcurrentHashMap<>();

		RedkitExtend(RedisServer redis, boolean nativeCommands) {
			this.context = Clients.springContext(redis, Map.of("redkit.native-commands", nativeCommands));
			this.locks = this.context.getBean(DistributedLocks.class);
			this.nativeCommands = nativeCommands;
		}

		@Override
		public String name() {
			return "Redkit LockHandle.extend, redkit.native-commands=" + this.nativeCommands;
		}

		@Override
		public void operate(int thread, long iteration) {
			LockHandle handle = this.held.computeIfAbsent(thread,
					(t) -> this.locks.tryLock("extend-" + t + "-" + this.nativeCommands, Duration.ZERO, LEASE)
						.orElseThrow());
			handle.extend(LEASE);
		}

		@Override
		public void close() {
			this.held.values().forEach(LockHandle::close);
			this.context.close();
		}

	}

}
