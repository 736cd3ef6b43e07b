package io.github.redkit.lock;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redkit.testsupport.LockRecords;
import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

/**
 * {@code @DistributedLock} through Spring AOP, with {@code @Transactional}.
 */
class LockAnnotationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				LockAutoConfiguration.class, AopAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withPropertyValues("redkit.key-prefix=redkit-test")
		.withUserConfiguration(Services.class);

	@Test
	void theLockIsHeldWhileTheTransactionCommitsAndReleasedAfterIt() {
		this.runner.run((context) -> {
			Billing billing = context.getBean(Billing.class);
			RecordingTransactionManager transactions = context.getBean(RecordingTransactionManager.class);
			String user = "u-" + UUID.randomUUID();
			long fence = billing.charge(user);
			assertThat(fence).isPositive();
			assertThat(transactions.lockHeldAtCommit).containsExactly(true);
			assertThat(
					LockRecords.held(context.getBean(StringRedisTemplate.class), lockKey(context, "billing:" + user)))
				.isFalse();
			assertThat(DistributedLocks.current()).isEmpty();
		});
	}

	@Test
	void aLockHeldElsewhereFailsTheCallAfterTheWaitTime() {
		this.runner.run((context) -> {
			Billing billing = context.getBean(Billing.class);
			String user = "u-" + UUID.randomUUID();
			try (LockHandle other = context.getBean(DistributedLocks.class)
				.tryLock("billing:" + user, Duration.ZERO, Duration.ofSeconds(10))
				.orElseThrow()) {
				assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(() -> billing.charge(user))
					.satisfies((ex) -> {
						assertThat(ex.getLockName()).isEqualTo("'billing:' + #userId");
						assertThat(ex.getKey()).isEqualTo("billing:" + user);
						assertThat(ex.getWaited()).isGreaterThanOrEqualTo(Duration.ofMillis(200));
					});
			}
			assertThat(context.getBean(RecordingTransactionManager.class).lockHeldAtCommit).isEmpty();
		});
	}

	@Test
	void aWaitingCallRunsOnceTheHolderReturns() {
		this.runner.run((context) -> {
			Billing billing = context.getBean(Billing.class);
			String user = "u-" + UUID.randomUUID();
			ExecutorService executor = Executors.newFixedThreadPool(2);
			try {
				Future<Long> first = executor.submit(() -> billing.slowCharge(user));
				await().atMost(Duration.ofSeconds(5)).until(() -> billing.inside().getCount() == 0);
				Future<Long> second = executor.submit(() -> billing.waitingCharge(user));
				billing.proceed().countDown();
				assertThat(second.get(10, TimeUnit.SECONDS)).isGreaterThan(first.get(10, TimeUnit.SECONDS));
			}
			finally {
				executor.shutdownNow();
			}
		});
	}

	@Test
	void reentrantAcquisitionOfTheSameKeyIsRefusedAtOnce() {
		this.runner.run((context) -> {
			Billing billing = context.getBean(Billing.class);
			long start = System.nanoTime();
			assertThatIllegalStateException().isThrownBy(() -> billing.nested(context.getBean(Billing.class), "r1"))
				.withMessageContaining("not re-entrant");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		});
	}

	@Test
	void aLeaseThatRunsOutInsideTheMethodFailsTheCall() {
		this.runner.run((context) -> {
			Billing billing = context.getBean(Billing.class);
			assertThatExceptionOfType(LockLostException.class)
				.isThrownBy(() -> billing.tooLong("t-" + UUID.randomUUID()))
				.withMessageContaining("was lost");
			assertThat(context.getBean(LostLocks.class).lost).hasSize(1);
		});
	}

	@Test
	void aFailingMethodReleasesTheLock() {
		this.runner.run((context) -> {
			Billing billing = context.getBean(Billing.class);
			String user = "f-" + UUID.randomUUID();
			assertThatIllegalStateException().isThrownBy(() -> billing.failing(user)).withMessage("boom");
			assertThat(
					LockRecords.held(context.getBean(StringRedisTemplate.class), lockKey(context, "billing:" + user)))
				.isFalse();
		});
	}

	private static String lockKey(org.springframework.context.ApplicationContext context, String key) {
		return context.getBean(RedisKeyspace.class).key("lock").tag(key).build();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class Services {

		@Bean
		RecordingTransactionManager transactionManager(StringRedisTemplate redis, RedisKeyspace keyspace) {
			return new RecordingTransactionManager(redis, keyspace);
		}

		@Bean
		Billing billing() {
			return new Billing();
		}

		@Bean
		LostLocks lostLocks() {
			return new LostLocks();
		}

	}

	static class LostLocks implements LockListener {

		final List<LockHandle> lost = new CopyOnWriteArrayList<>();

		@Override
		public void onLeaseLost(LockHandle handle) {
			this.lost.add(handle);
		}

	}

	static class Billing {

		final CountDownLatch inside = new CountDownLatch(1);

		final CountDownLatch proceed = new CountDownLatch(1);

		public CountDownLatch inside() {
			return this.inside;
		}

		public CountDownLatch proceed() {
			return this.proceed;
		}

		@DistributedLock(key = "'billing:' + #userId", waitTime = "200ms")
		@Transactional
		public long charge(String userId) {
			LockHandle handle = DistributedLocks.current().orElseThrow();
			assertThat(handle.key()).isEqualTo("billing:" + userId);
			assertThat(handle.isHeld()).isTrue();
			RecordingTransactionManager.currentLockKey.set(handle.key());
			return handle.fencingToken();
		}

		@DistributedLock(key = "'billing:' + #userId")
		public long slowCharge(String userId) throws InterruptedException {
			this.inside.countDown();
			this.proceed.await(10, TimeUnit.SECONDS);
			return DistributedLocks.current().orElseThrow().fencingToken();
		}

		@DistributedLock(key = "'billing:' + #userId", waitTime = "10s")
		public long waitingCharge(String userId) {
			return DistributedLocks.current().orElseThrow().fencingToken();
		}

		@DistributedLock(key = "'billing:' + #p1")
		public long nested(Billing self, String userId) {
			return self.charge(userId);
		}

		@DistributedLock(key = "'report:' + #id", leaseTime = "150ms")
		public String tooLong(String id) {
			LockHandle handle = DistributedLocks.current().orElseThrow();
			await().atMost(Duration.ofSeconds(5)).until(() -> !handle.isHeld());
			return "late";
		}

		@DistributedLock(key = "'billing:' + #userId")
		public void failing(String userId) {
			throw new IllegalStateException("boom");
		}

	}

	/**
	 * A transaction manager double that records, at commit, whether the lock the method
	 * took is still in Redis.
	 */
	static class RecordingTransactionManager extends AbstractPlatformTransactionManager
			implements PlatformTransactionManager {

		static final ThreadLocal<String> currentLockKey = new ThreadLocal<>();

		final List<Boolean> lockHeldAtCommit = new CopyOnWriteArrayList<>();

		private final transient StringRedisTemplate redis;

		private final transient RedisKeyspace keyspace;

		RecordingTransactionManager(StringRedisTemplate redis, RedisKeyspace keyspace) {
			this.redis = redis;
			this.keyspace = keyspace;
		}

		@Override
		protected Object doGetTransaction() {
			return new Object();
		}

		@Override
		protected void doBegin(Object transaction, org.springframework.transaction.TransactionDefinition definition) {
		}

		@Override
		protected void doCommit(DefaultTransactionStatus status) {
			String key = currentLockKey.get();
			currentLockKey.remove();
			this.lockHeldAtCommit
				.add(key != null && LockRecords.held(this.redis, this.keyspace.key("lock").tag(key).build()));
		}

		@Override
		protected void doRollback(DefaultTransactionStatus status) {
		}

	}

}
