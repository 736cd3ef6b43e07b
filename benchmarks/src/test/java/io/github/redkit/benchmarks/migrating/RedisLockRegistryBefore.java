package io.github.redkit.benchmarks.migrating;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * The Spring Integration side of {@code docs/migrating/spring-integration.md}: a
 * {@code RedisLockRegistry}, leader election on it, and a lock taken in code. Compiled
 * against Spring Integration, not run.
 */
class RedisLockRegistryBefore {

	// tag::registry[]
	@Configuration(proxyBeanMethods = false)
	static class LockConfiguration {

		// keys app-locks:<lock key>: this registry's client id, for 60 s unless renewed
		@Bean
		RedisLockRegistry lockRegistry(RedisConnectionFactory connectionFactory) {
			RedisLockRegistry registry = new RedisLockRegistry(connectionFactory, "app-locks", 60_000);
			registry.setRedisLockType(RedisLockRegistry.RedisLockType.PUB_SUB_LOCK);
			return registry;
		}

		@Bean
		LockRegistryLeaderInitiator leaderInitiator(LockRegistry<?> locks) {
			return new LockRegistryLeaderInitiator(locks);
		}

	}
	// end::registry[]

	static boolean ship(LockRegistry<?> locks, String orderId) throws InterruptedException {
		// tag::obtain[]
		Lock lock = locks.obtain("order-" + orderId);
		if (!lock.tryLock(5, TimeUnit.SECONDS)) {
			return false;
		}
		try {
			shipping.ship(orderId);
		}
		finally {
			lock.unlock();
		}
		// end::obtain[]
		return true;
	}

	private static final Shipping shipping = new Shipping();

	static class Shipping {

		void ship(String orderId) {
		}

	}

}
