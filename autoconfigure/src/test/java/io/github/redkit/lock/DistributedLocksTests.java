package io.github.redkit.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.testsupport.LockRecords;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.NativeCommand;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.lock.internal.RedisDistributedLocks;
import io.github.redkit.testsupport.CommandLog;
import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * {@link RedisDistributedLocks} against a real Redis: exclusion, fencing, ownership,
 * waking, round trips.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.BOTH)
class DistributedLocksTests {

	@Parameter
	RedisTopology topology;

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final List<LockHandle> lost = new CopyOnWriteArrayList<>();

	private RedisScriptRunner runner;

	private StringRedisTemplate redis;

	private RedisDistributedLocks locks;

	private final String key = "order-" + UUID.randomUUID();

	@BeforeEach
	void connect() {
		this.runner = new RedisScriptRunner(this.topology.connectionFactory());
		// as the auto-configuration does: probes the server for native commands
		this.runner.connectInBackground().join();
		this.redis = this.runner.template();
		this.locks = new RedisDistributedLocks(this.runner, new RedisKeyspace("redkit-test"),
				new LockSettings(Duration.ofSeconds(30), Duration.ofSeconds(2), Duration.ofSeconds(1)),
				new MicrometerRedkitMetrics(() -> this.registry), RedkitObservations.NONE, List.of(this.lost::add));
	}

	@AfterEach
	void close() {
		this.locks.destroy();
	}

	private String lockKey(String key) {
		return this.locks.redisKeys(key).get(0);
	}

	@Test
	void sixteenThreadsDoingReadModifyWriteUnderTheLockLoseNoUpdateAndSeeIncreasingFencingTokens() throws Exception {
		int threads = 16;
		int iterations = 15;
		String counter = "redkit-test:counter:" + this.key;
		AtomicLong highestFence = new AtomicLong();
		List<Long> staleFences = new CopyOnWriteArrayList<>();
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				done.add(executor.submit(() -> {
					for (int i = 0; i < iterations; i++) {
						this.locks.withLock(this.key, Duration.ofSeconds(30), Duration.ofSeconds(10), () -> {
							// the protected resource refuses a token that is not above
							// every
							// token it has seen
							long fence = DistributedLocks.current().orElseThrow().fencingToken();
							if (highestFence.getAndAccumulate(fence, Math::max) >= fence) {
								staleFences.add(fence);
							}
							String value = this.redis.opsForValue().get(counter);
							long next = ((value != null) ? Long.parseLong(value) : 0) + 1;
							this.redis.opsForValue().set(counter, Long.toString(next), Duration.ofMinutes(5));
							return null;
						});
					}
				}));
			}
			for (Future<?> future : done) {
				future.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(this.redis.opsForValue().get(counter)).isEqualTo(Integer.toString(threads * iterations));
		assertThat(staleFences).isEmpty();
		assertThat(this.registry.get("redkit.lock.acquire").tag("outcome", "acquired").counter().count())
			.isEqualTo(threads * iterations);
		assertThat(this.lost).isEmpty();
	}

	@Test
	void aHolderWhoseLeaseExpiredCannotReleaseOrExtendTheNextHoldersLock() {
		LockHandle first = this.locks.tryLock(this.key, Duration.ZERO, Duration.ofMillis(100)).orElseThrow();
		await().atMost(Duration.ofSeconds(60)).until(() -> !LockRecords.held(this.redis, lockKey(this.key)));
		assertThat(first.isHeld()).isFalse();
		LockHandle second = this.locks.tryLock(this.key, Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
		assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
		assertThat(first.extend(Duration.ofSeconds(30))).isFalse();
		first.close();
		assertThat(second.isHeld()).isTrue();
		assertThat(LockRecords.held(this.redis, lockKey(this.key))).isTrue();
		assertThat(this.locks.tryLock(this.key, Duration.ZERO, Duration.ofSeconds(1))).isEmpty();
		second.close();
		assertThat(LockRecords.held(this.redis, lockKey(this.key))).isFalse();
		assertThat(this.lost).containsExactly(first);
		assertThat(this.registry.get("redkit.lock.lease.lost").counter().count()).isOne();
	}

	@Test
	void aWaiterIsWokenByTheReleaseWellBeforeTheFallbackRetry() throws Exception {
		RedisDistributedLocks patient = patientLocks();
		LockHandle holder = patient.tryLock(this.key, Duration.ZERO, Duration.ofMinutes(5)).orElseThrow();
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<Long> acquiredAt = executor.submit(() -> {
				try (LockHandle handle = patient.tryLock(this.key, Duration.ofMinutes(5), Duration.ofSeconds(10))
					.orElseThrow()) {
					return System.nanoTime();
				}
			});
			// release once the waiter listens and has slept past its attempt after
			// subscribing
			await().atMost(Duration.ofSeconds(60))
				.until(() -> subscribers(lockKey(this.key)) > 0
						&& LockRecords.waitedFor(this.redis, lockKey(this.key)));
			long releasedAt = System.nanoTime();
			holder.close();
			Duration handover = Duration.ofNanos(acquiredAt.get(60, TimeUnit.SECONDS) - releasedAt);
			// the fallback retry sleeps 30 to 60 s here: a handover within a third of
			// that
			// is the release's wake-up, however late a loaded machine runs the waiter
			assertThat(handover).isLessThan(Duration.ofSeconds(10));
		}
		finally {
			executor.shutdownNow();
			patient.destroy();
		}
	}

	/**
	 * Locks whose waiters retry without a notification only after 30 to 60 s, longer than
	 * any test waits: an acquisition sooner than that was woken, or timed by the holder's
	 * lease.
	 */
	private RedisDistributedLocks patientLocks() {
		return new RedisDistributedLocks(this.runner, new RedisKeyspace("redkit-test"),
				new LockSettings(Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(60)),
				new MicrometerRedkitMetrics(() -> this.registry), RedkitObservations.NONE, List.of());
	}

	private long subscribers(String channel) {
		long count = 0;
		for (Object reply : this.topology.server().callOnEveryNode("PUBSUB", "NUMSUB", channel)) {
			List<?> pair = (List<?>) reply;
			count += Long.parseLong(String.valueOf(pair.get(1)));
		}
		return count;
	}

	@Test
	void anInterruptedHolderStillReleasesItsLockAndKeepsItsInterrupt() {
		LockHandle held = this.locks.tryLock(this.key, Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
		Thread.currentThread().interrupt();
		boolean released;
		try {
			released = held.release();
		}
		finally {
			assertThat(Thread.interrupted()).as("the interrupt is kept for the caller").isTrue();
		}
		assertThat(released).as("released while held").isTrue();
		assertThat(LockRecords.held(this.redis, lockKey(this.key))).isFalse();
		assertThat(this.lost).isEmpty();
	}

	@Test
	void aWaiterGivesUpAfterItsWaitTime() {
		LockHandle holder = this.locks.tryLock(this.key, Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
		long start = System.nanoTime();
		Optional<LockHandle> refused = this.locks.tryLock(this.key, Duration.ofMillis(300), Duration.ofSeconds(1));
		Duration waited = Duration.ofNanos(System.nanoTime() - start);
		assertThat(refused).isEmpty();
		assertThat(waited).isBetween(Duration.ofMillis(300), Duration.ofSeconds(3));
		holder.close();
		assertThat(this.registry.get("redkit.lock.acquire").tag("outcome", "not_acquired").counter().count()).isOne();
		assertThat(this.registry.get("redkit.lock.wait").tag("outcome", "not_acquired").timer().count()).isOne();
		assertThat(this.registry.get("redkit.lock.wait").tag("name", DistributedLocks.UNNAMED).timers()).hasSize(2);
	}

	@Test
	void aWaiterTakesALockWhoseHolderDiedWhenItsLeaseEnds() {
		RedisDistributedLocks patient = patientLocks();
		try {
			patient.tryLock(this.key, Duration.ZERO, Duration.ofMillis(200)).orElseThrow();
			long start = System.nanoTime();
			LockHandle next = patient.tryLock(this.key, Duration.ofMinutes(5), Duration.ofSeconds(5)).orElseThrow();
			// timed by the lease's end (200 ms), not by the fallback retry (30 to 60 s),
			// however late a loaded machine runs the waiter
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
			next.close();
		}
		finally {
			patient.destroy();
		}
	}

	@Test
	void theLockBelongsToTheAcquisitionNotToTheThread() throws Exception {
		LockHandle handle = this.locks.tryLock(this.key, Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
		ExecutorService virtualThreads = virtualThreadsIfAvailable();
		try {
			assertThat(virtualThreads.submit(() -> this.locks.tryLock(this.key, Duration.ZERO, Duration.ofSeconds(1)))
				.get()).isEmpty();
			assertThat(virtualThreads.submit(() -> handle.extend(Duration.ofSeconds(20))).get()).isTrue();
			virtualThreads.submit(handle::close).get();
		}
		finally {
			virtualThreads.shutdownNow();
		}
		assertThat(LockRecords.held(this.redis, lockKey(this.key))).isFalse();
		assertThat(handle.isHeld()).isFalse();
	}

	private static ExecutorService virtualThreadsIfAvailable() {
		try {
			// the build targets Java 17; on 21+ the handle is used from virtual threads
			return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
		}
		catch (ReflectiveOperationException ex) {
			return Executors.newCachedThreadPool();
		}
	}

	@Test
	void aReleaseWakesOneWaiterNotEveryWaiter() throws Exception {
		// no fallback retry during the test: every attempt after the first two of a
		// waiter is a wake-up
		RedisDistributedLocks patient = patientLocks();
		int waiters = 16;
		ExecutorService executor = Executors.newFixedThreadPool(waiters);
		try {
			LockHandle holder = patient.tryLock(this.key, Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
			List<Long> fences = new CopyOnWriteArrayList<>();
			CommandLog log = CommandLog.record(this.topology.server(), () -> {
				List<Future<?>> acquisitions = new ArrayList<>();
				for (int i = 0; i < waiters; i++) {
					acquisitions.add(executor.submit(() -> {
						try (LockHandle handle = patient
							.tryLock(this.key, Duration.ofSeconds(30), Duration.ofSeconds(10))
							.orElseThrow()) {
							fences.add(handle.fencingToken());
						}
					}));
				}
				await().atMost(Duration.ofSeconds(60)).until(() -> patient.waitingThreads(this.key) == waiters);
				holder.close();
				acquisitions.forEach((acquisition) -> {
					try {
						acquisition.get(20, TimeUnit.SECONDS);
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
				});
			});
			assertThat(fences).hasSize(waiters).doesNotHaveDuplicates();
			// a refused attempt puts the holder's record back: a second SET, without GET
			long refused = log.scriptCommands()
				.stream()
				.filter((command) -> command.startsWith("\"set\"") && command.contains(this.key)
						&& !command.endsWith("\"GET\""))
				.count();
			// each waiter is refused twice before it waits (before and after
			// subscribing);
			// waking every waiter on each release would add about waiters^2 / 2 refusals
			assertThat(refused).as("attempts refused").isLessThanOrEqualTo(3L * waiters);
		}
		finally {
			executor.shutdownNow();
			patient.destroy();
		}
	}

	@Test
	void acquireAndReleaseAreOneRoundTripEach() {
		// the same key first: each cluster node loads the scripts on their first use
		// there
		this.locks.tryLock(this.key, Duration.ZERO, Duration.ofSeconds(10)).orElseThrow().close();
		LockHandle[] handle = new LockHandle[1];
		CommandLog acquire = CommandLog.record(this.topology.server(),
				() -> handle[0] = this.locks.tryLock(this.key, Duration.ofSeconds(5), Duration.ofSeconds(10))
					.orElseThrow());
		CommandLog release = CommandLog.record(this.topology.server(), handle[0]::close);
		assertThat(acquire.roundTrips((command) -> command.contains(this.key))).isOne();
		assertThat(release.roundTrips((command) -> command.contains(this.key))).isOne();
		assertThat(release.scriptCommands())
			.noneMatch((command) -> command.contains("publish") && command.contains(this.key));
		// inside the scripts: TIME and one SET ... GET of the record; then one SET ...
		// GET
		assertThat(acquire.scriptCommands()).filteredOn((command) -> command.contains(this.key))
			.extracting((command) -> command.substring(0, command.indexOf(' ')))
			.containsExactly("\"set\"");
		// (with SET IFEQ, that one round trip is the SET itself)
		assertThat(release.scriptCommands()).filteredOn((command) -> command.contains(this.key))
			.extracting((command) -> command.substring(0, command.indexOf(' ')))
			.containsExactlyElementsOf(
					this.runner.nativeCommands().contains(NativeCommand.SET_IF_EQUAL) ? List.of() : List.of("\"set\""));
	}

	@Test
	void anAcquireAndItsReleaseAreFiveCommandsInAllAndFourWithSetIfEqual() {
		// loads the scripts (on a cluster, on the key's node)
		this.locks.tryLock(this.key, Duration.ZERO, Duration.ofSeconds(10)).orElseThrow().close();
		CommandStats before = this.topology.server().commandStats();
		LockHandle handle = this.locks.tryLock(this.key, Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
		Set<String> background = this.topology.server().backgroundCommands();
		CommandStats acquired = this.topology.server().commandStats().since(before).without(background);
		CommandStats beforeRelease = this.topology.server().commandStats();
		assertThat(handle.release()).isTrue();
		CommandStats released = this.topology.server().commandStats().since(beforeRelease).without(background);
		// INFO commandstats counts the script call and the commands it ran; a new pooled
		// connection's HELLO or PING is not the lock's
		assertThat(acquired.asMap().keySet()).as(acquired.toString())
			.isSubsetOf("evalsha", "time", "set", "ping", "hello", "client");
		assertThat(acquired.calls("evalsha") + acquired.calls("time") + acquired.calls("set")).isEqualTo(3);
		assertThat(released.asMap().keySet()).as(released.toString())
			.isSubsetOf("evalsha", "set", "ping", "hello", "client");
		// on a server with SET IFEQ (Valkey 8.1), the record is the holder's to the byte
		// and nobody waits: one SET frees it
		boolean nativeRelease = this.runner.nativeCommands().contains(NativeCommand.SET_IF_EQUAL);
		assertThat(released.calls("evalsha")).as(released.toString()).isEqualTo(nativeRelease ? 0 : 1);
		assertThat(released.calls("set")).as(released.toString()).isEqualTo(1);
		// a release when someone waits publishes: one command more, only then
		LockHandle held = this.locks.tryLock(this.key, Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
		assertThat(this.locks.tryLock(this.key, Duration.ofMillis(50), Duration.ofSeconds(1))).isEmpty();
		CommandStats beforeWoken = this.topology.server().commandStats();
		held.close();
		CommandStats woken = this.topology.server().commandStats().since(beforeWoken);
		// with SET IFEQ, the waiter's flag made the record another: the script ran next;
		// it keeps the releaser's token beside the record (one SET more: a woken waiter
		// may
		// take the lock before a copy of the release arrives)
		assertThat(woken.calls("evalsha") + woken.calls("set")).as(woken.toString()).isEqualTo(nativeRelease ? 4 : 3);
		// (a Sentinel's hello is a PUBLISH too)
		assertThat(woken.calls("publish")).as(woken.toString())
			.isBetween(1L, background.contains("publish") ? Long.MAX_VALUE : 1L);
	}

	@Test
	void anExtendedLockIsStillFreedByOneSetOnAServerWithSetIfEqual() {
		LockHandle handle = this.locks.tryLock(this.key, Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
		assumeTrue(this.runner.nativeCommands().contains(NativeCommand.SET_IF_EQUAL),
				"a server with SET IFEQ (Valkey 8.1 and 9.1 here)");
		assertThat(handle.extend(Duration.ofSeconds(20))).isTrue();
		CommandStats before = this.topology.server().commandStats();
		assertThat(handle.release()).isTrue();
		CommandStats released = this.topology.server().commandStats().since(before);
		assertThat(released.calls("evalsha")).as(released.toString()).isZero();
		assertThat(released.calls("set")).as(released.toString()).isEqualTo(1);
		assertThat(LockRecords.held(this.redis, lockKey(this.key))).isFalse();
		// a lost lock: the SET finds another holder's record and the script says so
		LockHandle lost = this.locks.tryLock(this.key, Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
		LockRecords.write(this.redis, lockKey(this.key), lost.fencingToken() + 1, "someone-else",
				(System.currentTimeMillis() + 60_000) * 1000, false);
		assertThat(lost.release()).isFalse();
		assertThat(LockRecords.holder(this.redis, lockKey(this.key))).isEqualTo("someone-else");
	}

	@Test
	void aRefusedAttemptIsFourCommandsAndAnExtensionThree() {
		LockHandle held = this.locks.tryLock(this.key, Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
		assertThat(this.locks.tryLock(this.key, Duration.ZERO, Duration.ofSeconds(1))).isEmpty();
		CommandStats before = this.topology.server().commandStats();
		assertThat(this.locks.tryLock(this.key, Duration.ZERO, Duration.ofSeconds(1))).isEmpty();
		CommandStats refused = this.topology.server().commandStats().since(before);
		// TIME, the SET ... GET that read the holder's record, the SET that put it back
		assertThat(refused.calls("evalsha") + refused.calls("time") + refused.calls("set")).as(refused.toString())
			.isEqualTo(4);
		CommandStats beforeExtend = this.topology.server().commandStats();
		assertThat(held.extend(Duration.ofSeconds(20))).isTrue();
		CommandStats extended = this.topology.server().commandStats().since(beforeExtend);
		assertThat(extended.calls("evalsha") + extended.calls("time") + extended.calls("set")).as(extended.toString())
			.isEqualTo(3);
		held.close();
	}

}
