package io.github.redkit.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.redkit.concurrency.ConcurrencyLimiter;
import io.github.redkit.concurrency.ConcurrencyPermit;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Concurrency limits under random faults, and the checker catching a broken build: judged
 * on a recorded run in the CI, live in the soak. The CI's live run is the partition
 * schedule that found a defect; seed 2 runs in the soak.
 */
class ConcurrencyLimitFaultTests {

	@Tag("soak")
	@ParameterizedTest
	@ValueSource(longs = { 2 })
	void atMostTheLimitHoldsAndEveryPlaceComesBackUnderTheSeedsFaults(long seed) {
		Faults.check(ConcurrencyLimitScenario::new, seed);
	}

	/**
	 * The 30-minute soak's seed of 2026-11-30 whose drain found a key's places taken 2.1
	 * s after every holder stopped (issue 43): 10 s of clients, as the soak runs them (13
	 * s with its failover).
	 */
	@Tag("soak")
	@ParameterizedTest
	@ValueSource(longs = { 6851084355519625703L })
	void everyPlaceComesBackUnderTheSoaksSeeds(long seed) {
		Faults.check(ConcurrencyLimitScenario::new, seed, FaultSoakTests.SOAK_MILLIS);
	}

	@ParameterizedTest
	@EnumSource(value = ConcurrencyLimitScenario.Breakage.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
	void theCheckerCatchesABrokenBuild(ConcurrencyLimitScenario.Breakage breakage) {
		assertCaught(breakage, Recording.judge(recording(breakage), new ConcurrencyLimitScenario(breakage)));
	}

	@Tag("soak")
	@ParameterizedTest
	@EnumSource(value = ConcurrencyLimitScenario.Breakage.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
	void theCheckerCatchesABrokenBuildLive(ConcurrencyLimitScenario.Breakage breakage) {
		assertCaught(breakage,
				Recording
					.run(recording(breakage), () -> new ConcurrencyLimitScenario(breakage),
							new Schedule(7, 3000, List.of()))
					.violations());
	}

	/**
	 * Links partitioned past the lease, one instance after another: a holder whose
	 * renewals cannot reach Redis must know its place is gone once its lease ran out
	 * (three holders of a limit of two were inside before the fix, each believing it held
	 * its permit).
	 */
	@Test
	void aHolderWhoseRenewalsCannotReachRedisPastItsLeaseCountsNoMore() {
		List<FaultEvent> partitions = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			partitions.add(new FaultEvent(500 + i * 1500, Fault.PARTITION, 1300, i + 1, 0));
		}
		FaultRun.Result result = FaultRun.run(ConcurrencyLimitScenario::new, new Schedule(1, 6500, partitions));
		assertThat(result.violations()).isEmpty();
	}

	/**
	 * A key whose places stay taken (two permits never given back, renewed) fails its
	 * drain with the permits Redis held, and the next key is still tried: in the soak
	 * (seed 6851084355519625703) the first key used the whole deadline and the second was
	 * reported refused without a single attempt, at the same instant.
	 */
	@Test
	void theDrainTriesEveryKeyAndSaysWhatHeldAPlace(@PrivateRedis RedisNode redis) {
		ConcurrencyLimitScenario scenario = new ConcurrencyLimitScenario();
		try (ConfigurableApplicationContext instance = instance(scenario, redis)) {
			ConcurrencyLimiter limiter = instance.getBean(ConcurrencyLimiter.class);
			List<ConcurrencyPermit> kept = List.of(
					limiter.tryAcquire(ConcurrencyLimitScenario.LIMIT, "k0").orElseThrow(),
					limiter.tryAcquire(ConcurrencyLimitScenario.LIMIT, "k0").orElseThrow());
			History history = new History();
			scenario.settle(List.of(instance), history);
			kept.forEach(ConcurrencyPermit::close);
			assertThat(history.ops()).extracting(Op::key, Op::outcome)
				.containsExactly(tuple("k0", Outcome.REFUSED), tuple("k1", Outcome.OK));
			assertThat(String.valueOf(history.ops().get(0).value())).contains("refused at place 1").contains("ms left");
		}
	}

	/**
	 * An asynchronous caller whose wait runs out just before its permit arrives, and
	 * whose cancel then comes too late (it returns {@code false}: the future holds the
	 * permit): a loaded machine may schedule the two so. The permit is the caller's to
	 * give back; the scenario's client dropped it, and the permit, never closed, was
	 * renewed for ever: the drain found the key's places taken after every holder stopped
	 * (how the soak's seed 6851084355519625703 could fail, and 16 re-runs pass).
	 */
	@Test
	void anAsynchronousCallerWhosePermitArrivesAsItGivesUpGivesItBack(@PrivateRedis RedisNode redis) {
		ConcurrencyLimitScenario scenario = new ConcurrencyLimitScenario();
		try (ConfigurableApplicationContext instance = instance(scenario, redis)) {
			ConcurrencyLimiter limiter = instance.getBean(ConcurrencyLimiter.class);
			for (int i = 0; i < ConcurrencyLimitScenario.PLACES; i++) {
				CompletableFuture<Optional<ConcurrencyPermit>> answer = limiter
					.tryAcquireAsync(ConcurrencyLimitScenario.LIMIT, "k0");
				CompletableFuture<Optional<ConcurrencyPermit>> answeredAsTheWaitEnds = new CompletableFuture<>() {

					@Override
					public Optional<ConcurrencyPermit> get(long timeout, TimeUnit unit) throws TimeoutException {
						complete(answer.join());
						throw new TimeoutException("the wait ran out as the permit arrived");
					}

				};
				assertThatExceptionOfType(TimeoutException.class)
					.isThrownBy(() -> ConcurrencyLimitScenario.awaitOrGiveUp(answeredAsTheWaitEnds, 1));
				assertThat(answer.join()).hasValueSatisfying((permit) -> assertThat(permit.acquired()).isTrue());
			}
			History history = new History();
			scenario.settle(List.of(instance), history);
			assertThat(history.ops()).extracting(Op::key, Op::outcome)
				.containsExactly(tuple("k0", Outcome.OK), tuple("k1", Outcome.OK));
		}
	}

	private static String recording(ConcurrencyLimitScenario.Breakage breakage) {
		return "concurrency-limits-" + breakage;
	}

	private static void assertCaught(ConcurrencyLimitScenario.Breakage breakage, List<String> violations) {
		assertThat(violations).as("violations found in a build broken with %s", breakage).isNotEmpty();
	}

	// one instance of the scenario's application on a node of the test's own
	private static ConfigurableApplicationContext instance(ConcurrencyLimitScenario scenario, RedisNode redis) {
		return new SpringApplicationBuilder(FaultApplication.class, LimitedWork.class, BrokenConcurrencyLimiter.class)
			.web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "redkit.key-prefix=faults", "spring.data.redis.host=127.0.0.1",
					"spring.data.redis.port=" + redis.port())
			.properties(scenario.properties().toArray(String[]::new))
			.run();
	}

}
