package io.github.redkit.ratelimit;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.internal.PreparedLimit;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.RedisConnection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Reservations settled with what the call really used: under-use comes back in the window
 * the call was decided in, over-use is charged whatever the windows hold, a call settled
 * at 0 counts nothing; on every algorithm, for several identifiers (on a cluster in
 * several slots), and the bound the docs state attacked by continuous clients.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.SCRIPTS)
class RateLimitSettlementTests {

	private static final Duration HOUR = Duration.ofHours(1);

	@Parameter
	RedisTopology topology;

	private RedisScriptRunner runner;

	private RedisRateLimiter limiter;

	@BeforeEach
	void createTheLimiter() {
		this.runner = new RedisScriptRunner(this.topology.connectionFactory());
		// a generous timeout: under ALLOW, a decision that times out on a loaded machine
		// is
		// let through uncounted and its settlement answers false (one CI run at load 31)
		this.limiter = new RedisRateLimiter(this.runner, new RedisKeyspace("rl-settle"), Map.of(),
				new RateLimitSettings(LimitFailureMode.ALLOW, Duration.ofSeconds(30), Duration.ZERO),
				RedkitMetrics.NONE, RedkitObservations.NONE);
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void underUseComesBackOverUseIsChargedAndZeroCountsNothing(RateLimitAlgorithm algorithm) {
		String name = "settle-" + UUID.randomUUID();
		define(name, algorithm, 100, HOUR);
		List<String> keys = List.of("alice");
		RateLimitReservation used3 = this.limiter.reserve(name, keys, 10);
		assertThat(used3.allowed()).isTrue();
		assertThat(used3.estimate()).isEqualTo(10);
		assertThat(used3.settle(3)).isTrue();
		assertThat(remaining(name, keys)).as("10 taken, 7 given back, 1 for this look").isEqualTo(100 - 3 - 1);
		RateLimitReservation used25 = this.limiter.reserve(name, keys, 10);
		assertThat(used25.settle(25)).isTrue();
		assertThat(remaining(name, keys)).as("15 charged past the estimate").isEqualTo(100 - 4 - 25 - 1);
		RateLimitReservation unused = this.limiter.reserve(name, keys, 10);
		assertThat(unused.giveBackAsync().join()).isTrue();
		assertThat(remaining(name, keys)).as("a call settled at 0 counts nothing").isEqualTo(100 - 30 - 1);
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> unused.settle(5));
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void aChargeGoesPastTheLimitAndTheCallsAfterItWait(RateLimitAlgorithm algorithm) {
		String name = "over-" + UUID.randomUUID();
		define(name, algorithm, 10, HOUR);
		List<String> keys = List.of("bob");
		RateLimitReservation reservation = this.limiter.reserve(name, keys, 4);
		assertThat(reservation.settle(12)).isTrue();
		RateLimitDecision next = this.limiter.tryAcquire(name, keys, 1);
		assertThat(next.allowed()).as("12 used of 10: nothing left until the window drains").isFalse();
		assertThat(next.remaining()).isZero();
	}

	@Test
	void severalIdentifiersAreSettledOnEachOfThemInEverySlot() {
		String name = "keys-" + UUID.randomUUID();
		define(name, RateLimitAlgorithm.SLIDING_WINDOW, 50, HOUR);
		// on a cluster these land in different slots: one settlement per slot
		List<String> keys = List.of("user:1", "ip:10.0.0.1", "tenant:acme");
		this.limiter.reserve(name, keys, 20).settle(5);
		this.limiter.reserve(name, keys, 5).settle(30);
		for (String key : keys) {
			assertThat(remaining(name, List.of(key))).as(key).isEqualTo(50 - 5 - 30 - 1);
		}
	}

	@Test
	void aRefusedReservationTakesNothingAndItsSettlementChangesNothing() {
		String name = "refused-" + UUID.randomUUID();
		define(name, RateLimitAlgorithm.SLIDING_WINDOW, 5, HOUR);
		List<String> keys = List.of("carol");
		this.limiter.reserve(name, keys, 4);
		RateLimitReservation refused = this.limiter.reserve(name, keys, 4);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.settle(0)).isTrue();
		assertThat(remaining(name, keys)).isEqualTo(0);
	}

	@Test
	void aNegativeAmountIsRefused() {
		String name = "negative-" + UUID.randomUUID();
		define(name, RateLimitAlgorithm.SLIDING_WINDOW, 5, HOUR);
		RateLimitReservation reservation = this.limiter.reserve(name, List.of("dan"), 1);
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> reservation.settle(-1))
			.withMessageContaining("negative");
	}

	/**
	 * The bound the docs state: over any interval of one period, what the calls really
	 * used (each call's estimate, or its use when smaller, when it was decided, and its
	 * excess when it settled) stays within the limit plus the excesses of the calls
	 * running at once: one per client. Several clients reserve continuously from a random
	 * phase, each settling at random between nothing and three times its estimate.
	 */
	@ParameterizedTest
	@EnumSource(value = RateLimitAlgorithm.class, names = { "SLIDING_WINDOW", "SLIDING_LOG" })
	void noPeriodHoldsMoreThanTheLimitPlusTheExcessOfTheCallsInFlight(RateLimitAlgorithm algorithm)
			throws InterruptedException {
		int limit = 40;
		int estimate = 4;
		int clients = 4;
		long maxExcess = 2L * estimate;
		// judged on Redis' clock over any interval of one period: a short one proves the
		// same as a long one
		Duration period = Duration.ofMillis(200);
		String name = "bound-" + UUID.randomUUID();
		define(name, algorithm, limit, period);
		List<String> keys = List.of("client");
		this.limiter.reserve(name, List.of("warm-up"), 1);
		double offset = redisMillis() - System.currentTimeMillis();
		long start = System.nanoTime() + ThreadLocalRandom.current().nextLong(period.toNanos());
		// two periods from a random phase hold every interval of one period that starts
		// in the first (the clients spin for as long as they run: that is the cost)
		long end = start + 2 * period.toNanos();
		// a loaded machine serves fewer calls in two periods: the clients go on until
		// they have been served twice the limit (the bound is judged over every interval
		// however long they run)
		long deadline = start + Duration.ofSeconds(30).toNanos();
		AtomicLong served = new AtomicLong();
		ConcurrentLinkedQueue<double[]> used = new ConcurrentLinkedQueue<>();
		CountDownLatch done = new CountDownLatch(clients);
		for (int c = 0; c < clients; c++) {
			Thread client = new Thread(() -> {
				try {
					while (System.nanoTime() < start) {
						Thread.onSpinWait();
					}
					while (System.nanoTime() < end || (served.get() <= 2 * limit && System.nanoTime() < deadline)) {
						RateLimitReservation reservation = this.limiter.reserve(name, keys, estimate);
						if (!reservation.allowed()) {
							continue;
						}
						long actual = ThreadLocalRandom.current().nextLong(3L * estimate + 1);
						double decided = reservation.decision().decidedAt().toEpochMilli();
						used.add(new double[] { decided, Math.min(actual, estimate) });
						double settling = System.currentTimeMillis() + offset;
						assertThat(reservation.settle(actual)).isTrue();
						served.addAndGet(actual);
						if (actual > estimate) {
							double settled = System.currentTimeMillis() + offset;
							used.add(new double[] { (settling + settled) / 2, actual - estimate });
						}
					}
				}
				finally {
					done.countDown();
				}
			});
			client.setDaemon(true);
			client.start();
		}
		done.await();
		List<double[]> events = new ArrayList<>(used);
		events.sort(Comparator.comparingDouble((double[] event) -> event[0]));
		double busiest = 0;
		double total = 0;
		for (int i = 0; i < events.size(); i++) {
			double sum = 0;
			for (int j = i; j < events.size() && events.get(j)[0] < events.get(i)[0] + period.toMillis(); j++) {
				sum += events.get(j)[1];
			}
			busiest = Math.max(busiest, sum);
			total += events.get(i)[1];
		}
		assertThat(busiest).as("the most used in any interval of one period")
			.isLessThanOrEqualTo(limit + clients * maxExcess);
		assertThat(total).as("what the clients used is given back: they are served").isGreaterThan(2 * limit);
	}

	@Test
	void anAmountAboveTheLargestIsRefusedAndTheReservationCanStillBeSettled() {
		String name = "absurd-" + UUID.randomUUID();
		define(name, RateLimitAlgorithm.SLIDING_WINDOW, 50, HOUR);
		List<String> keys = List.of("erin");
		RateLimitReservation reservation = this.limiter.reserve(name, keys, 10);
		// what an infinite #result maps to
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> reservation.settle(Long.MAX_VALUE))
			.withMessageContaining("actual")
			.withMessageContaining("9007199254740991");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> reservation.settle(1L << 53));
		assertThat(reservation.settle(3)).isTrue();
		assertThat(remaining(name, keys)).isEqualTo(50 - 3 - 1);
	}

	/**
	 * The largest amount a call may be settled at is charged on every algorithm: the
	 * windows are full (a token bucket owes it for longer than anyone waits), and the
	 * identifier's key still has an expiry Redis accepted.
	 */
	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void theLargestAmountIsChargedFillsEveryWindowAndKeepsAnExpiry(RateLimitAlgorithm algorithm) {
		String name = "largest-" + UUID.randomUUID();
		RateLimitPolicy policy = new RateLimitPolicy(algorithm,
				List.of(RateLimitWindow.of(5, Duration.ofSeconds(10)), RateLimitWindow.of(100, HOUR)));
		this.limiter.define(name, policy);
		List<String> keys = List.of("frank");
		RateLimitReservation reservation = this.limiter.reserve(name, keys, 1);
		assertThat(reservation.settle((1L << 53) - 1)).as("charged").isTrue();
		RateLimitDecision next = this.limiter.tryAcquire(name, keys, 1);
		assertThat(next.allowed()).as("every window is full").isFalse();
		assertThat(next.retryAfter()).isPositive();
		String key = PreparedLimit.of(name, policy, new RedisKeyspace("rl-settle")).key("frank");
		try (RedisConnection connection = this.topology.connectionFactory().getConnection()) {
			Long ttl = connection.keyCommands().pTtl(key.getBytes(StandardCharsets.UTF_8));
			assertThat(ttl).as("the key expires").isPositive();
		}
	}

	@Test
	void aSlidingLogChargeAddsAtMostTheLargestWindowsLimitOfMembers() {
		String name = "log-" + UUID.randomUUID();
		RateLimitPolicy policy = new RateLimitPolicy(RateLimitAlgorithm.SLIDING_LOG,
				List.of(RateLimitWindow.of(5, Duration.ofMinutes(1)), RateLimitWindow.of(20, HOUR)));
		this.limiter.define(name, policy);
		RateLimitReservation reservation = this.limiter.reserve(name, List.of("gina"), 2);
		assertThat(reservation.settle(1_000_000)).isTrue();
		String key = PreparedLimit.of(name, policy, new RedisKeyspace("rl-settle")).key("gina");
		try (RedisConnection connection = this.topology.connectionFactory().getConnection()) {
			assertThat(connection.zSetCommands().zCard(key.getBytes(StandardCharsets.UTF_8)))
				.as("the estimate's 2 members and the largest limit's 20")
				.isEqualTo(2 + 20);
		}
		assertThat(this.limiter.tryAcquire(name, List.of("gina"), 1).allowed()).isFalse();
	}

	/**
	 * The token bucket's bound (a full bucket, then what the time refills: over any
	 * interval between two admitted calls, at most {@code limit + elapsed × limit /
	 * period} permits, so at most {@code 2 × limit - 1} in one period) against the client
	 * that a late give-back favours: reservations taken from a full bucket and as it
	 * refills, settled at nothing only once the refill has paid their tokens again, while
	 * continuous callers take every token the bucket holds. Every interval between two
	 * admitted calls is checked, each call counted at its use when it was decided.
	 */
	@Test
	void aLateGiveBackNeverTakesATokenBucketPastItsBound() throws InterruptedException {
		int limit = 10;
		int estimate = 2;
		// the callers spin until the last settlement: a shorter period (a token every
		// 20 ms, still tens of calls apart) proves the same on Redis' clock
		Duration period = Duration.ofMillis(200);
		double interval = (double) period.toMillis() / limit;
		String name = "late-" + UUID.randomUUID();
		define(name, RateLimitAlgorithm.TOKEN_BUCKET, limit, period);
		List<String> keys = List.of("bucket");
		ConcurrentLinkedQueue<double[]> used = new ConcurrentLinkedQueue<>();
		this.limiter.reserve(name, List.of("warm-up"), 1);
		// the reservations a late settlement will find refilled: the full bucket, then a
		// period's refill (twice the limit: more than a bucket can give back at once)
		List<RateLimitReservation> late = new ArrayList<>();
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (late.size() * estimate < 2 * limit && System.nanoTime() < deadline) {
			RateLimitReservation reservation = this.limiter.reserve(name, keys, estimate);
			if (reservation.allowed()) {
				late.add(reservation);
				used.add(new double[] { millis(reservation.decision()), 0 });
			}
		}
		assertThat(late).hasSize(2 * limit / estimate);
		double lastReserved = millis(late.get(late.size() - 1).decision());
		AtomicLong admitted = new AtomicLong();
		AtomicBoolean calling = new AtomicBoolean(true);
		List<Thread> callers = new ArrayList<>();
		for (int c = 0; c < 3; c++) {
			Thread caller = new Thread(() -> {
				while (calling.get()) {
					RateLimitDecision decision = this.limiter.tryAcquire(name, keys, 1);
					if (decision.allowed()) {
						used.add(new double[] { millis(decision), 1 });
						admitted.incrementAndGet();
					}
				}
			});
			caller.setDaemon(true);
			caller.start();
			callers.add(caller);
		}
		try {
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(5))
				.until(() -> redisMillis() > lastReserved + period.toMillis());
			for (RateLimitReservation reservation : late) {
				long before = admitted.get();
				assertThat(reservation.settle(0)).isTrue();
				// whatever came back is taken before the next settlement
				await().atMost(Duration.ofSeconds(10)).until(() -> admitted.get() >= before + estimate);
			}
		}
		finally {
			calling.set(false);
			for (Thread caller : callers) {
				caller.join();
			}
		}
		List<double[]> events = new ArrayList<>(used);
		events.sort(Comparator.comparingDouble((double[] event) -> event[0]));
		double worst = Double.NEGATIVE_INFINITY;
		double busiestPeriod = 0;
		for (int i = 0; i < events.size(); i++) {
			double sum = 0;
			double inPeriod = 0;
			for (int j = i; j < events.size(); j++) {
				double elapsed = events.get(j)[0] - events.get(i)[0];
				sum += events.get(j)[1];
				worst = Math.max(worst, sum - (limit + elapsed / interval));
				if (elapsed < period.toMillis()) {
					inPeriod = sum;
				}
			}
			busiestPeriod = Math.max(busiestPeriod, inPeriod);
		}
		// decidedAt is Redis' time in ms as a double made an Instant of ns: off by a
		// few hundred ns, thousandths of a token at most
		assertThat(worst).as("permits beyond a full bucket and the refill, in the worst interval")
			.isLessThanOrEqualTo(1e-3);
		assertThat(busiestPeriod).as("the most in any interval of one period").isLessThanOrEqualTo(2 * limit - 1);
	}

	/**
	 * Reservations settled last first, the way nested calls finish: each later call's
	 * give-back leaves the earlier calls' tokens owed, and those come back whole.
	 */
	@Test
	void tokenBucketReservationsSettledLastFirstAllComeBack() {
		String name = "lifo-" + UUID.randomUUID();
		define(name, RateLimitAlgorithm.TOKEN_BUCKET, 100, HOUR);
		List<String> keys = List.of("nested");
		RateLimitReservation first = this.limiter.reserve(name, keys, 10);
		RateLimitReservation second = this.limiter.reserve(name, keys, 10);
		RateLimitReservation third = this.limiter.reserve(name, keys, 10);
		assertThat(third.settle(0)).isTrue();
		assertThat(second.settle(0)).isTrue();
		assertThat(first.settle(0)).isTrue();
		assertThat(remaining(name, keys)).as("only this look's 1 is taken").isEqualTo(100 - 1);
		RateLimitReservation again = this.limiter.reserve(name, keys, 10);
		RateLimitReservation last = this.limiter.reserve(name, keys, 10);
		assertThat(last.settle(0)).isTrue();
		assertThat(again.settle(0)).isTrue();
		assertThat(remaining(name, keys)).as("the give-backs of the second round come back whole too")
			.isEqualTo(100 - 1 - 1);
	}

	/**
	 * The same with a token no double near today's time holds (233.3… ms): the TAT is
	 * rounded up, and the bucket's count must not keep that rounding, or the last call's
	 * give-back leaves the count above the earlier calls' and they get nothing back.
	 */
	@Test
	void tokenBucketReservationsSettledLastFirstAllComeBackWhateverTheToken() {
		String name = "lifo-token-" + UUID.randomUUID();
		define(name, RateLimitAlgorithm.TOKEN_BUCKET, 30, Duration.ofSeconds(7));
		List<String> keys = List.of("nested");
		RateLimitReservation first = this.limiter.reserve(name, keys, 10);
		RateLimitReservation second = this.limiter.reserve(name, keys, 10);
		RateLimitReservation third = this.limiter.reserve(name, keys, 10);
		assertThat(third.allowed()).isTrue();
		assertThat(third.settle(0)).isTrue();
		assertThat(second.settle(0)).isTrue();
		assertThat(first.settle(0)).isTrue();
		assertThat(remaining(name, keys)).as("only this look's 1 is taken").isEqualTo(30 - 1);
	}

	/**
	 * An earlier reservation settled below its estimate after a later one was settled
	 * while the last one still held its tokens (in an hour of 100: every interval far
	 * within the bound). Used 3 + 4 + 10 = 17, so 82 would be left; the bucket's one
	 * record cannot tell the middle call's give-back (6) from one of a call before the
	 * first, which would have moved the first call's tokens closer to the refill, so the
	 * first call gets back its 7 unused tokens less what is left of those 6 above its own
	 * stretch: 4. This is the loss the docs bound (what other calls gave back meanwhile
	 * without lowering the bucket's count, plus the tokens refilled since the call);
	 * never more than the call left unused.
	 */
	@Test
	void anEarlierReservationLosesAtMostWhatALaterOneGaveBackWhileTheLastHeldItsTokens() {
		String name = "middle-" + UUID.randomUUID();
		define(name, RateLimitAlgorithm.TOKEN_BUCKET, 100, HOUR);
		List<String> keys = List.of("middle");
		RateLimitReservation first = this.limiter.reserve(name, keys, 10);
		RateLimitReservation middle = this.limiter.reserve(name, keys, 10);
		RateLimitReservation last = this.limiter.reserve(name, keys, 10);
		assertThat(last.allowed()).isTrue();
		assertThat(middle.settle(4)).isTrue();
		assertThat(first.settle(3)).isTrue();
		assertThat(remaining(name, keys))
			.as("3 + 4 + 10 used, 3 of the first call's 7 unused lost to the middle call's give-back, 1 for this look")
			.isEqualTo(100 - 17 - 3 - 1);
		assertThat(last.settle(0)).isTrue();
		assertThat(remaining(name, keys)).as("the last reservation, its tokens still owed, gets back all of its 10")
			.isEqualTo(100 - 17 - 3 - 1 + 10 - 1);
	}

	private static double millis(RateLimitDecision decision) {
		Instant at = decision.decidedAt();
		assertThat(at).isNotNull();
		return at.getEpochSecond() * 1000.0 + at.getNano() / 1_000_000.0;
	}

	private void define(String name, RateLimitAlgorithm algorithm, int limit, Duration period) {
		this.limiter.define(name, new RateLimitPolicy(algorithm, List.of(RateLimitWindow.of(limit, period))));
	}

	private long remaining(String name, List<String> keys) {
		RateLimitDecision look = this.limiter.tryAcquire(name, keys, 1);
		return look.allowed() ? look.remaining() : 0;
	}

	private double redisMillis() {
		try (RedisConnection connection = this.topology.connectionFactory().getConnection()) {
			Long time = connection.serverCommands().time();
			assertThat(time).isNotNull();
			return time;
		}
	}

}
