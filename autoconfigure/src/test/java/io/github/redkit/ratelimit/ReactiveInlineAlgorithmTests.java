package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.internal.DefaultReactiveRateLimiter;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.NonBlockingThreads;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The first inline decision of an algorithm no limit has used yet reads nothing from the
 * classpath on its caller's thread: an inline limit is prepared during a call, on an
 * event loop too (BlockHound watches). Token bucket: no other reactive test uses it, so
 * nothing earlier in this JVM has prepared it.
 */
@Tag("tests-apart")
class ReactiveInlineAlgorithmTests {

	@BeforeAll
	static void watchForBlocking() {
		NonBlockingThreads.watch();
	}

	@Test
	void theFirstInlineDecisionOfAnAlgorithmOnANonBlockingThreadReadsNoScript() {
		RedisScriptRunner runner = new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory());
		// no named limit: only inline ones, prepared during calls
		RedisRateLimiter limiter = new RedisRateLimiter(runner, new RedisKeyspace("rial-test"), Map.of(),
				new RateLimitSettings(LimitFailureMode.DENY, Duration.ofSeconds(5), Duration.ZERO), RedkitMetrics.NONE,
				RedkitObservations.NONE);
		// the first connection is made off the caller's thread; make it before the check
		runner.connectInBackground().join();
		ReactiveRateLimiter reactive = new DefaultReactiveRateLimiter(limiter);
		RateLimitPolicy bucket = new RateLimitPolicy(RateLimitAlgorithm.TOKEN_BUCKET,
				List.of(RateLimitWindow.of(5, Duration.ofHours(1))));
		String id = "inline-bucket-" + UUID.randomUUID();
		for (int call = 0; call < 2; call++) {
			RateLimitDecision decision = reactive.tryAcquire(id, bucket, List.of("k"), 1)
				.subscribeOn(Schedulers.parallel())
				.publishOn(Schedulers.parallel())
				.block(Duration.ofSeconds(10));
			assertThat(decision.allowed()).as("call %d", call + 1).isTrue();
			assertThat(decision.remaining()).as("call %d", call + 1).isEqualTo(4 - call);
		}
	}

}
