package io.github.redkit.benchmarks.migrating;

import java.util.Optional;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.shedlock.RedkitLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The release between ShedLock's Redis provider and Redkit's of
 * {@code docs/migrating/shedlock.md}: a task runs only under both locks. Compiled against
 * both, not run.
 */
class ShedLockTransition {

	// tag::both[]
	@Configuration(proxyBeanMethods = false)
	static class TransitionConfiguration {

		// declaring a LockProvider turns Redkit's own off: make it here
		@Bean
		LockProvider lockProvider(RedisConnectionFactory connectionFactory, DistributedLocks locks) {
			return new BothLockProvider(new RedisLockProvider(connectionFactory, "prod"),
					new RedkitLockProvider(locks));
		}

	}

	/** Takes the old provider's lock, then Redkit's; gives them back in reverse. */
	record BothLockProvider(LockProvider first, LockProvider second) implements LockProvider {

		@Override
		public Optional<SimpleLock> lock(LockConfiguration configuration) {
			Optional<SimpleLock> outer = first.lock(configuration);
			if (outer.isEmpty()) {
				return Optional.empty();
			}
			Optional<SimpleLock> inner;
			try {
				inner = second.lock(configuration);
			}
			catch (RuntimeException ex) {
				outer.get().unlock();
				throw ex;
			}
			if (inner.isEmpty()) {
				outer.get().unlock();
				return Optional.empty();
			}
			return Optional.of(() -> {
				try {
					inner.get().unlock();
				}
				finally {
					outer.get().unlock();
				}
			});
		}

	}
	// end::both[]

}
