package io.github.redkit.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import io.github.redkit.cache.internal.SingleFlight;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.RedisServer;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * The cache's single-flight lock taken and given back ({@code cache_lock}, then
 * {@code cache_unlock}: what a cache miss of {@code @Cacheable(sync = true)} adds),
 * beside the raw {@code SET NX PX} and compare-and-delete pair: with native commands on,
 * the unlock is Valkey 9's {@code DELIFEQ}, off the script. Run it with
 * {@code --server=valkey-9}.
 */
final class CacheUnlockSuite {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private CacheUnlockSuite() {
	}

	static Suite create() {
		return new Suite("cache single flight (lock + unlock), native commands on and off",
				List.of(LockSuite.RawSetNx::new, (redis) -> new RedkitFlight(redis, true),
						(redis) -> new RedkitFlight(redis, false)));
	}

	static final class RedkitFlight implements Contender {

		private final ConfigurableApplicationContext context;

		private final SingleFlight flight;

		private final boolean nativeCommands;

		RedkitFlight(RedisServer redis, boolean nativeCommands) {
			this.context = Clients.springContext(redis, Map.of("redkit.native-commands", nativeCommands));
			this.flight = new SingleFlight(this.context.getBean(RedisScriptRunner.class),
					this.context.getBean(RedisKeyspace.class));
			this.nativeCommands = nativeCommands;
		}

		@Override
		public String name() {
			return "Redkit single flight lock + unlock, redkit.native-commands=" + this.nativeCommands;
		}

		@Override
		public void operate(int thread, long iteration) {
			String lock = this.flight.lockKey(Keys.of(thread, iteration).getBytes(StandardCharsets.UTF_8));
			String token = Long.toHexString(ThreadLocalRandom.current().nextLong());
			if (this.flight.tryLock(lock, token, LEASE)) {
				this.flight.unlock(lock, token, LEASE);
			}
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

}
