package io.github.redkit.shedlock;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redkit.testsupport.LockRecords;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.LockSettings;
import io.github.redkit.lock.internal.RedisDistributedLocks;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * ShedLock's own provider suite (its fuzz test included) on a real Redis: every test but
 * the two whose lease runs out while held must end without a lost lease.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
class RedkitLockProviderTests extends AbstractExtensibleLockProviderIntegrationTest {

	// lockAtMostFor ends while the lock is held: a real loss
	private static final Set<String> LEASE_RUNS_OUT = Set.of("shouldTimeout", "shouldNotBeAbleToExtendExpiredLock");

	@Parameter
	RedisTopology topology;

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final List<LockHandle> lost = new CopyOnWriteArrayList<>();

	private final RedisKeyspace keyspace = new RedisKeyspace("redkit-shedlock-" + UUID.randomUUID());

	private StringRedisTemplate redis;

	private RedisDistributedLocks locks;

	private RedkitLockProvider provider;

	@BeforeEach
	void connect() {
		RedisScriptRunner runner = new RedisScriptRunner(this.topology.connectionFactory());
		this.redis = runner.template();
		this.locks = new RedisDistributedLocks(runner, this.keyspace,
				new LockSettings(Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofSeconds(1)),
				new MicrometerRedkitMetrics(() -> this.registry), RedkitObservations.NONE, List.of(this.lost::add));
		this.provider = new RedkitLockProvider(this.locks);
	}

	@AfterEach
	void noLostLease(TestInfo test) {
		this.locks.destroy();
		String method = test.getTestMethod().orElseThrow().getName();
		if (!LEASE_RUNS_OUT.contains(method)) {
			assertThat(this.lost).as("lost leases in %s", method).isEmpty();
			assertThat(this.registry.find("redkit.lock.lease.lost").counters())
				.allSatisfy((counter) -> assertThat(counter.count()).isZero());
		}
	}

	@Override
	protected ExtensibleLockProvider getLockProvider() {
		return this.provider;
	}

	@Override
	protected void assertLocked(String lockName) {
		assertThat(LockRecords.held(this.redis, lockKey(lockName))).as("%s locked", lockName).isTrue();
	}

	@Override
	protected void assertUnlocked(String lockName) {
		assertThat(LockRecords.held(this.redis, lockKey(lockName))).as("%s unlocked", lockName).isFalse();
	}

	private String lockKey(String lockName) {
		return this.keyspace.key("lock").tag(lockName).build();
	}

}
