package io.github.redkit.lock.internal;

import java.time.Duration;

import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.TcpProxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * A waiter's subscription that Redis never confirms (a partition while it subscribes)
 * costs the waiter at most its wait, and never blocks other waiters or the shutdown: the
 * fault harness once saw every lock wait and the application's shutdown hang behind one
 * such subscription.
 */
class LockWaitersSubscriptionTests {

	@Test
	@Timeout(60)
	void aSubscriptionRedisNeverConfirmsKeepsNoWaiterBeyondItsWaitAndNeverBlocksTheShutdown(
			@PrivateRedis RedisServer redis) throws Exception {
		try (TcpProxy link = TcpProxy.start(redis.port())) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(RedisServer.HOST, link.port()),
					LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(30)).build());
			factory.afterPropertiesSet();
			factory.start();
			LockWaiters waiters = new LockWaiters(factory);
			try {
				link.partition();
				long started = System.nanoTime();
				LockWaiters.Waiter first = waiters.subscribe("lock-a", Duration.ofMillis(300));
				LockWaiters.Waiter second = waiters.subscribe("lock-b", Duration.ofMillis(300));
				assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
				waiters.unsubscribe(first, false);
				waiters.unsubscribe(second, false);
				started = System.nanoTime();
				assertThatNoException().isThrownBy(waiters::shutdown);
				assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
			}
			finally {
				link.heal();
				factory.destroy();
			}
		}
	}

}
