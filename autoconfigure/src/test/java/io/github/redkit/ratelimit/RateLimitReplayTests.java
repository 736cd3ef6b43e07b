package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.internal.DefaultReactiveRateLimiter;
import io.github.redkit.ratelimit.internal.LocalRateLimiter;
import io.github.redkit.ratelimit.internal.RateLimitInstances;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.github.redkit.testsupport.TcpProxy;
import io.lettuce.core.ClientOptions;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientConfigurationBuilderCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Rate-limit decisions and settlements counted once when Lettuce sends them again: the
 * connection is cut after Redis applied the call and before its answer came back
 * ({@link TcpProxy#cutAfterNextWrite()}), so Lettuce reconnects and sends the same call
 * again (issue 43). A decision or a charge is not sent again (Redkit drops the re-send,
 * and the caller meets the failure mode, as after a timeout); a give-back is idempotent.
 * On every server family: the give-back's marker and the decisions are scripts whose
 * answers are the server's.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.FAMILIES)
class RateLimitReplayTests {

	// long enough for a cold first call on a loaded machine: a warm-up that timed out
	// would be decided by the failure mode, and its late delivery caught by the cut
	private static final Duration TIMEOUT = Duration.ofSeconds(15);

	private static final RateLimitPolicy POLICY = new RateLimitPolicy(RateLimitAlgorithm.SLIDING_WINDOW,
			List.of(RateLimitWindow.of(10, Duration.ofHours(1))));

	private final RedisTopology topology;

	private final TcpProxy link;

	private final LettuceConnectionFactory factory;

	private final RedisKeyspace keyspace = new RedisKeyspace("rlrp-" + UUID.randomUUID());

	private final String key = "replayed-" + UUID.randomUUID();

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	RateLimitReplayTests(RedisTopology topology) {
		this.topology = topology;
		this.link = TcpProxy.start(topology.server().port());
		this.factory = this.link.connectionFactory(TIMEOUT);
	}

	@AfterEach
	void close() {
		this.factory.destroy();
		this.link.close();
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void aDecisionIsCountedOnceAndTheCallerMeetsTheFailureMode(RateLimitAlgorithm algorithm) {
		RateLimiter limiter = limiter(algorithm, RateLimitFailureMode.ALLOW, new RedisScriptRunner(this.factory));
		RateLimiter direct = limiter(algorithm, RateLimitFailureMode.DENY,
				new RedisScriptRunner(this.topology.connectionFactory()));
		// connected, and the script loaded, before the cut
		assertThat(limiter.tryAcquire("api", "warm-up-" + UUID.randomUUID()).allowed()).isTrue();
		this.link.cutAfterNextWrite();
		RateLimitDecision decision = limiter.tryAcquire("api", this.key);
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(direct.tryAcquire("api", this.key).remaining()).as("the cut call counted once").isEqualTo(8);
		// Redis applied it once; whether it did, the caller cannot know: the failure mode
		assertThat(decision.allowed()).isTrue();
		assertThat(decisions("replay-dropped")).isOne();
		assertThat(decisions("failed-open")).isZero();
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void aDecisionOfTwoIdentifiersUnderDenyIsRefusedAndCountedOnce(RateLimitAlgorithm algorithm) {
		RateLimiter limiter = limiter(algorithm, RateLimitFailureMode.DENY, new RedisScriptRunner(this.factory));
		RateLimiter direct = limiter(algorithm, RateLimitFailureMode.DENY,
				new RedisScriptRunner(this.topology.connectionFactory()));
		assertThat(limiter.tryAcquire("api", "warm-up-" + UUID.randomUUID()).allowed()).isTrue();
		this.link.cutAfterNextWrite();
		Throwable refused = catchThrowable(() -> limiter.tryAcquire("api", List.of(this.key, this.key + "-other"), 1));
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(direct.tryAcquire("api", this.key).remaining()).as("the cut call counted once").isEqualTo(8);
		assertThat(direct.tryAcquire("api", this.key + "-other").remaining()).isEqualTo(8);
		// whether Redis applied it, the caller cannot know: the failure mode
		assertThat(refused).isInstanceOf(RateLimiterUnavailableException.class);
		assertThat(decisions("replay-dropped")).isOne();
		assertThat(decisions("failed-closed")).isZero();
	}

	@Test
	void aDroppedDecisionFailsThatCallOnlyAndStartsNoCooldown() {
		// the PING sent in the dropped call's place was answered: Redis is reachable, and
		// the other calls, another limit's included, are still decided by Redis
		RedisRateLimiter limiter = limiter(RateLimitAlgorithm.SLIDING_WINDOW, RateLimitFailureMode.DENY,
				Duration.ofHours(1), new RedisScriptRunner(this.factory));
		assertThat(limiter.tryAcquire("api", "warm-up-" + UUID.randomUUID()).allowed()).isTrue();
		this.link.cutAfterNextWrite();
		Throwable refused = catchThrowable(() -> limiter.tryAcquire("api", this.key));
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(refused).isInstanceOf(RateLimiterUnavailableException.class);
		assertThat(((RateLimiterUnavailableException) refused).getRetryAfter()).isZero();
		RateLimitDecision other = limiter.tryAcquire("other", this.key + "-other");
		assertThat(other.allowed()).isTrue();
		assertThat(other.remaining()).as("decided by Redis").isEqualTo(9);
		assertThat(limiter.tryAcquire("api", this.key).remaining()).as("decided by Redis, the cut call counted once")
			.isEqualTo(8);
		assertThat(decisions("replay-dropped")).isOne();
		assertThat(decisions("failed-closed")).isZero();
	}

	@Test
	void aDroppedDecisionUnderTheLocalFailureModeIsNoOutage() {
		// Redis answered the PING sent in the dropped call's place: the local limiter
		// decides that call, but this instance is not degraded and nothing says Redis is
		// away
		LocalRateLimiter local = new LocalRateLimiter(new RateLimitInstances(1), 1_000);
		RedisRateLimiter limiter = new RedisRateLimiter(new RedisScriptRunner(this.factory), this.keyspace,
				Map.of("api", POLICY),
				new RateLimitSettings(RateLimitFailureMode.LOCAL, TIMEOUT, Duration.ofHours(1), local),
				new MicrometerRedkitMetrics(() -> this.registry), RedkitObservations.NONE);
		assertThat(limiter.tryAcquire("api", "warm-up-" + UUID.randomUUID()).allowed()).isTrue();
		this.link.cutAfterNextWrite();
		RateLimitDecision dropped = limiter.tryAcquire("api", this.key);
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(dropped.allowed()).isTrue();
		assertThat(dropped.local()).as("decided on this instance").isTrue();
		assertThat(local.degradedSince()).as("no outage began").isNull();
		assertThat(limiter.tryAcquire("api", this.key).remaining()).as("decided by Redis, the cut call counted once")
			.isEqualTo(8);
		assertThat(decisions("replay-dropped")).isOne();
		assertThat(decisions("local-allowed")).isZero();
	}

	@Test
	void aDroppedReactiveDecisionFailsThatCallOnlyAndStartsNoCooldown() {
		RedisRateLimiter limiter = limiter(RateLimitAlgorithm.SLIDING_WINDOW, RateLimitFailureMode.DENY,
				Duration.ofHours(1), new RedisScriptRunner(this.factory));
		ReactiveRateLimiter reactive = new DefaultReactiveRateLimiter(limiter);
		assertThat(reactive.tryAcquire("api", "warm-up-" + UUID.randomUUID()).block(TIMEOUT).allowed()).isTrue();
		this.link.cutAfterNextWrite();
		Throwable refused = catchThrowable(() -> reactive.tryAcquire("api", this.key).block(TIMEOUT));
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(refused).isInstanceOf(RateLimiterUnavailableException.class);
		RateLimitDecision other = reactive.tryAcquire("other", this.key + "-other").block(TIMEOUT);
		assertThat(other.remaining()).as("decided by Redis").isEqualTo(9);
		assertThat(decisions("replay-dropped")).isOne();
		assertThat(decisions("failed-closed")).isZero();
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void aSettlementThatChargesMoreChargesOnce(RateLimitAlgorithm algorithm) {
		RateLimiter limiter = limiter(algorithm, RateLimitFailureMode.ALLOW, new RedisScriptRunner(this.factory));
		RateLimiter direct = limiter(algorithm, RateLimitFailureMode.DENY,
				new RedisScriptRunner(this.topology.connectionFactory()));
		RateLimitReservation reservation = limiter.reserve("api", List.of(this.key), 1);
		assertThat(reservation.decision().allowed()).isTrue();
		this.link.cutAfterNextWrite();
		// a charge of 4 more, applied by Redis, its answer lost
		boolean settled = reservation.settle(5);
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(direct.tryAcquire("api", this.key).remaining()).as("charged once").isEqualTo(4);
		// whether it was applied, the caller cannot know: the settlement is not confirmed
		assertThat(settled).isFalse();
		assertThat(settlements("replay-dropped")).isOne();
		assertThat(settlements("failed")).isZero();
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void aSettlementThatGivesBackGivesBackOnce(RateLimitAlgorithm algorithm) {
		RateLimiter limiter = limiter(algorithm, RateLimitFailureMode.ALLOW, new RedisScriptRunner(this.factory));
		RateLimiter direct = limiter(algorithm, RateLimitFailureMode.DENY,
				new RedisScriptRunner(this.topology.connectionFactory()));
		RateLimitReservation reservation = limiter.reserve("api", List.of(this.key), 5);
		assertThat(reservation.decision().allowed()).isTrue();
		this.link.cutAfterNextWrite();
		// 3 given back: the give-back's marker makes the replay give back nothing more
		assertThat(reservation.settle(2)).isTrue();
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(direct.tryAcquire("api", this.key).remaining()).as("given back once").isEqualTo(7);
	}

	@Test
	void theApplicationsOwnClientOptionsAreKeptAndADecisionIsStillCountedOnce() {
		// the application's own options, a replay filter of its own among them
		ClientOptions own = ClientOptions.builder().replayFilter((command) -> false).build();
		RateLimiter direct = limiter(RateLimitAlgorithm.SLIDING_WINDOW, RateLimitFailureMode.DENY,
				new RedisScriptRunner(this.topology.connectionFactory()));
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
					RateLimitAutoConfiguration.class))
			.withBean(MeterRegistry.class, () -> this.registry)
			.withBean(LettuceClientConfigurationBuilderCustomizer.class, () -> (builder) -> builder.clientOptions(own))
			.withPropertyValues("spring.data.redis.host=" + RedisServer.HOST,
					"spring.data.redis.port=" + this.link.port(), "spring.data.redis.timeout=15s",
					"redkit.key-prefix=" + this.keyspace.prefix(), "redkit.rate-limit.timeout=15s",
					"redkit.rate-limit.failure-mode=allow", "redkit.rate-limit.limits.api.algorithm=sliding-window",
					"redkit.rate-limit.limits.api.windows[0].limit=10",
					"redkit.rate-limit.limits.api.windows[0].period=1h")
			.run((context) -> {
				assertThat(context.getBean(LettuceConnectionFactory.class).getClientConfiguration().getClientOptions())
					.as("the application's options, as it set them")
					.containsSame(own);
				RateLimiter limiter = context.getBean(RateLimiter.class);
				assertThat(limiter.tryAcquire("api", "warm-up-" + UUID.randomUUID()).allowed()).isTrue();
				this.link.cutAfterNextWrite();
				RateLimitDecision decision = limiter.tryAcquire("api", this.key);
				assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
				assertThat(direct.tryAcquire("api", this.key).remaining()).as("the cut call counted once").isEqualTo(8);
				assertThat(decision.allowed()).isTrue();
				assertThat(decisions("replay-dropped")).isOne();
			});
	}

	private RateLimiter limiter(RateLimitAlgorithm algorithm, RateLimitFailureMode mode, RedisScriptRunner runner) {
		return limiter(algorithm, mode, Duration.ZERO, runner);
	}

	private RedisRateLimiter limiter(RateLimitAlgorithm algorithm, RateLimitFailureMode mode, Duration cooldown,
			RedisScriptRunner runner) {
		RateLimitPolicy policy = new RateLimitPolicy(algorithm, List.of(RateLimitWindow.of(10, Duration.ofHours(1))));
		return new RedisRateLimiter(runner, this.keyspace, Map.of("api", policy, "other", policy),
				new RateLimitSettings(mode, TIMEOUT, cooldown, null), new MicrometerRedkitMetrics(() -> this.registry),
				RedkitObservations.NONE);
	}

	private double settlements(String outcome) {
		Counter counter = this.registry.find("redkit.ratelimit.settlements").tags("outcome", outcome).counter();
		return (counter != null) ? counter.count() : 0;
	}

	private double decisions(String outcome) {
		Counter counter = this.registry.find("redkit.ratelimit.decisions").tags("outcome", outcome).counter();
		return (counter != null) ? counter.count() : 0;
	}

}
