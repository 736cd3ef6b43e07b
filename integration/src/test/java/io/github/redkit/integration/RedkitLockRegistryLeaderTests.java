package io.github.redkit.integration;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.lock.LockSettings;
import io.github.redkit.lock.internal.RedisDistributedLocks;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Spring Integration's leader election on {@link RedkitLockRegistry}: two instances, one
 * leader, and the leadership moves as soon as the leader stops (well before the lease
 * would end).
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
class RedkitLockRegistryLeaderTests {

	// long: leadership that moves sooner was handed over by the release
	private static final Duration LEASE = Duration.ofSeconds(30);

	@Parameter
	RedisTopology topology;

	private final String role = "leader-" + UUID.randomUUID();

	private RedisDistributedLocks locks1;

	private RedisDistributedLocks locks2;

	private LockRegistryLeaderInitiator initiator1;

	private LockRegistryLeaderInitiator initiator2;

	private final Recorder candidate1 = new Recorder("one", this.role);

	private final Recorder candidate2 = new Recorder("two", this.role);

	@BeforeEach
	void start() {
		RedisScriptRunner runner = new RedisScriptRunner(this.topology.connectionFactory());
		this.locks1 = locks(runner);
		this.locks2 = locks(runner);
		this.initiator1 = initiator(new RedkitLockRegistry(this.locks1, "si-leader"), this.candidate1);
		this.initiator2 = initiator(new RedkitLockRegistry(this.locks2, "si-leader"), this.candidate2);
	}

	private static RedisDistributedLocks locks(RedisScriptRunner runner) {
		return new RedisDistributedLocks(runner, new RedisKeyspace("redkit-test"),
				new LockSettings(LEASE, Duration.ofSeconds(10), Duration.ofSeconds(10)), RedkitMetrics.NONE,
				RedkitObservations.NONE, List.of());
	}

	private static LockRegistryLeaderInitiator initiator(RedkitLockRegistry registry, Recorder candidate) {
		LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
		initiator.setHeartBeatMillis(100);
		initiator.setBusyWaitMillis(20);
		initiator.setApplicationEventPublisher((event) -> {
		});
		return initiator;
	}

	@AfterEach
	void stop() {
		this.initiator1.stop();
		this.initiator2.stop();
		this.locks1.destroy();
		this.locks2.destroy();
	}

	private int leaders() {
		return (this.initiator1.getContext().isLeader() ? 1 : 0) + (this.initiator2.getContext().isLeader() ? 1 : 0);
	}

	@Test
	void exactlyOneInstanceLeadsAndTheLeadershipMovesWhenTheLeaderStops() {
		this.initiator1.start();
		this.initiator2.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> leaders() == 1);
		// the follower keeps trying every heartbeat: it must never win while the leader
		// runs
		await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(5)).until(() -> leaders() == 1);
		boolean firstLeads = this.initiator1.getContext().isLeader();
		LockRegistryLeaderInitiator leader = firstLeads ? this.initiator1 : this.initiator2;
		Recorder leading = firstLeads ? this.candidate1 : this.candidate2;
		Recorder following = firstLeads ? this.candidate2 : this.candidate1;
		assertThat(leading.granted).hasValue(1);
		assertThat(following.granted).hasValue(0);
		long stoppedAt = System.nanoTime();
		leader.stop();
		await().atMost(LEASE.dividedBy(3)).until(() -> following.granted.get() == 1);
		assertThat(Duration.ofNanos(System.nanoTime() - stoppedAt)).isLessThan(LEASE.dividedBy(3));
		await().atMost(Duration.ofSeconds(5)).until(() -> leading.revoked.get() == 1);
		assertThat(leaders()).isOne();
	}

	/**
	 * Counts the grants and revocations of one candidate.
	 */
	static final class Recorder extends DefaultCandidate {

		final AtomicInteger granted = new AtomicInteger();

		final AtomicInteger revoked = new AtomicInteger();

		Recorder(String id, String role) {
			super(id, role);
		}

		@Override
		public void onGranted(Context context) {
			this.granted.incrementAndGet();
		}

		@Override
		public void onRevoked(Context context) {
			this.revoked.incrementAndGet();
		}

	}

}
