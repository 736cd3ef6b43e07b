package io.github.redkit.lock;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.lock.internal.RedisDistributedLocks;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.testsupport.TcpProxy;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A lock release that the client sends again (its reply lost with the connection, issue
 * 43) answers what the first copy answered: released. Nothing reports the lock lost, the
 * lock is never kept held, and its record keeps the fencing token.
 */
class LockReleaseReplayTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final RedisKeyspace keyspace = new RedisKeyspace("lrr-" + UUID.randomUUID());

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final List<LockHandle> lost = new CopyOnWriteArrayList<>();

	@Test
	void aReleaseSentAgainAnswersReleasedAndNothingIsLost() {
		releaseSentAgain(RedisServers.standalone());
	}

	@Test
	void aReleaseSentAgainAsTheNativeSetIfEqualAnswersReleased() {
		assumeTrue(RedisServers.available("valkey-8"), "valkey-8 is not on this machine (.ci/servers fetches it)");
		releaseSentAgain(RedisServers.named("valkey-8"));
	}

	@Test
	void aReleaseSentAgainAfterAWokenWaiterTookTheLockAnswersReleased() {
		RedisServer server = RedisServers.standalone();
		// a second between the cut and the reconnect: the waiter the release wakes takes
		// the lock before the copy arrives
		ClientResources resources = ClientResources.builder()
			.reconnectDelay(Delay.constant(Duration.ofSeconds(1)))
			.build();
		try (TcpProxy link = TcpProxy.start(server.port())) {
			LettuceConnectionFactory factory = link.connectionFactory(TIMEOUT, resources);
			LettuceConnectionFactory directFactory = factoryTo(server);
			RedisDistributedLocks locks = locks(connected(new RedisScriptRunner(factory)));
			RedisDistributedLocks direct = locks(new RedisScriptRunner(directFactory));
			try {
				locks.tryLock("warm", Duration.ZERO, TIMEOUT).orElseThrow().close();
				LockHandle held = locks.tryLock("order", Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
				CompletableFuture<LockHandle> waiter = CompletableFuture
					.supplyAsync(() -> direct.tryLock("order", TIMEOUT, TIMEOUT).orElseThrow());
				// the waiter asked once and marked the record: the release will wake it
				await().atMost(TIMEOUT).until(() -> waiting(directFactory, locks.redisKeys("order").get(0)));
				link.cutAfterNextWrite();
				CompletableFuture<Boolean> released = held.releaseAsync();
				LockHandle next = waiter.join();
				assertThat(released.isDone()).as("the copy is still to come").isFalse();
				assertThat(released.join()).as("release() of a lock held all along").isTrue();
				assertThat(link.cutsAfterWrite()).isEqualTo(1);
				assertThat(next.isHeld()).isTrue();
				assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
				assertThat(locks.tryLock("order", Duration.ZERO, TIMEOUT)).as("the waiter's, still").isEmpty();
				assertThat(next.release()).isTrue();
				assertThat(this.lost).isEmpty();
				assertThat(lostMeter()).isZero();
			}
			finally {
				locks.destroy();
				direct.destroy();
				factory.destroy();
				directFactory.destroy();
				resources.shutdown();
			}
		}
	}

	@Test
	void aLockedMethodWhoseReleaseIsSentAgainReturnsItsValue() {
		try (TcpProxy link = TcpProxy.start(RedisServers.standalone().port())) {
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
						RedkitAutoConfiguration.class, LockAutoConfiguration.class, AopAutoConfiguration.class))
				.withPropertyValues("spring.data.redis.host=" + RedisServer.HOST,
						"spring.data.redis.port=" + link.port(), "spring.data.redis.timeout=10s",
						"redkit.lock.redis-timeout=10s", "redkit.key-prefix=" + this.keyspace.prefix())
				.withBean(TcpProxy.class, () -> link)
				.withBean(LockListener.class, () -> this.lost::add)
				.withBean(Reports.class)
				.run((context) -> {
					Reports reports = context.getBean(Reports.class);
					// connected, and the scripts loaded, before the cut
					assertThat(reports.write(false)).isEqualTo("written");
					assertThat(reports.write(true)).isEqualTo("written");
					assertThat(link.cutsAfterWrite()).isEqualTo(1);
					assertThat(this.lost).isEmpty();
				});
		}
	}

	private void releaseSentAgain(RedisServer server) {
		try (TcpProxy link = TcpProxy.start(server.port())) {
			LettuceConnectionFactory factory = link.connectionFactory(TIMEOUT);
			LettuceConnectionFactory directFactory = factoryTo(server);
			RedisDistributedLocks locks = locks(connected(new RedisScriptRunner(factory)));
			RedisDistributedLocks direct = locks(new RedisScriptRunner(directFactory));
			try {
				// connected, and the scripts loaded, before the cut
				locks.tryLock("warm", Duration.ZERO, TIMEOUT).orElseThrow().close();
				LockHandle held = locks.tryLock("order", Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
				link.cutAfterNextWrite();
				assertThat(held.release()).as("release() of a lock held all along, its reply lost").isTrue();
				assertThat(link.cutsAfterWrite()).isEqualTo(1);
				LockHandle again = locks.tryLock("order", Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
				link.cutAfterNextWrite();
				assertThat(again.releaseAsync().join()).as("the reactive faces' release").isTrue();
				assertThat(link.cutsAfterWrite()).isEqualTo(2);
				assertThat(this.lost).isEmpty();
				assertThat(lostMeter()).isZero();
				// free, and the fencing token kept: the next holder's is higher
				assertThat(recordedToken(directFactory, locks.redisKeys("order").get(0)))
					.isEqualTo(again.fencingToken());
				LockHandle next = direct.tryLock("order", Duration.ZERO, TIMEOUT).orElseThrow();
				assertThat(next.fencingToken()).isGreaterThan(again.fencingToken());
				next.close();
			}
			finally {
				locks.destroy();
				direct.destroy();
				factory.destroy();
				directFactory.destroy();
			}
		}
	}

	private double lostMeter() {
		return this.registry.find("redkit.lock.lease.lost").counters().stream().mapToDouble((c) -> c.count()).sum();
	}

	// the record: struct '<BddBs' (layout, fencing token, lease end, waiters, holder)
	private static long recordedToken(LettuceConnectionFactory factory, String key) {
		return (long) ByteBuffer.wrap(record(factory, key), 1, 8).order(ByteOrder.LITTLE_ENDIAN).getDouble();
	}

	private static boolean waiting(LettuceConnectionFactory factory, String key) {
		return record(factory, key)[17] == 1;
	}

	private static byte[] record(LettuceConnectionFactory factory, String key) {
		try (RedisConnection connection = factory.getConnection()) {
			byte[] record = connection.stringCommands().get(key.getBytes(StandardCharsets.UTF_8));
			assertThat(record).isNotNull();
			return record;
		}
	}

	private static LettuceConnectionFactory factoryTo(RedisServer server) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(RedisServer.HOST, server.port()));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	static class Reports {

		private final TcpProxy link;

		Reports(TcpProxy link) {
			this.link = link;
		}

		@DistributedLock(key = "'report'")
		String write(boolean cutTheRelease) {
			if (cutTheRelease) {
				// the next request is the release: Redis applies it, its reply is lost
				this.link.cutAfterNextWrite();
			}
			return "written";
		}

	}

	// as the auto-configuration does: probes the server for native commands
	private static RedisScriptRunner connected(RedisScriptRunner runner) {
		runner.connectInBackground().join();
		return runner;
	}

	private RedisDistributedLocks locks(RedisScriptRunner runner) {
		return new RedisDistributedLocks(runner, this.keyspace,
				new LockSettings(Duration.ofSeconds(30), TIMEOUT, Duration.ofSeconds(1)),
				new MicrometerRedkitMetrics(() -> this.registry), RedkitObservations.NONE, List.of(this.lost::add));
	}

}
