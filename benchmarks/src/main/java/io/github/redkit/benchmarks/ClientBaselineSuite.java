package io.github.redkit.benchmarks;

import java.util.List;

import io.github.redkit.testsupport.RedisServer;
import org.redisson.api.RedissonClient;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * One {@code INCR} through each client library: what the clients themselves cost, so the
 * other suites' ratios can be read against it.
 */
final class ClientBaselineSuite {

	private ClientBaselineSuite() {
	}

	static Suite create() {
		return new Suite("client baseline (INCR)", List.of(SpringDataIncr::new, RedissonIncr::new));
	}

	static final class SpringDataIncr implements Contender {

		private final ConfigurableApplicationContext context;

		private final StringRedisTemplate template;

		SpringDataIncr(RedisServer redis) {
			this.context = Clients.springContext(redis);
			this.template = this.context.getBean(StringRedisTemplate.class);
		}

		@Override
		public String name() {
			return "Spring Data Redis (Lettuce) INCR";
		}

		@Override
		public void operate(int thread, long iteration) {
			this.template.opsForValue().increment(Keys.of(thread, iteration));
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	static final class RedissonIncr implements Contender {

		private final RedissonClient redisson;

		RedissonIncr(RedisServer redis) {
			this.redisson = Clients.redisson(redis);
		}

		@Override
		public String name() {
			return "Redisson RAtomicLong.incrementAndGet";
		}

		@Override
		public void operate(int thread, long iteration) {
			this.redisson.getAtomicLong(Keys.of(thread, iteration)).incrementAndGet();
		}

		@Override
		public void close() {
			this.redisson.shutdown();
		}

	}

}
