package io.github.redkit.ratelimit.internal;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.RedisTopology;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A give-back whose next attempt cannot be scheduled (the scheduler shut down, or it
 * refused the task) ends as a failed settlement — {@code false}, counted {@code failed},
 * a WARN — instead of leaving its answer incomplete for ever.
 */
@ExtendWith(OutputCaptureExtension.class)
class PermitGiveBackRetryTests {

	@Test
	void aRetryThatCannotBeScheduledEndsTheGiveBackAsFailed(CapturedOutput output) throws Exception {
		RedisScriptRunner runner = new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory());
		StringRedisTemplate redis = runner.template();
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		ScheduledThreadPoolExecutor stopped = new ScheduledThreadPoolExecutor(1);
		stopped.shutdown();
		PermitGiveBack giveBack = new PermitGiveBack(runner, Duration.ofSeconds(2),
				new MicrometerRedkitMetrics(() -> registry),
				(millis, retry) -> stopped.schedule(retry, millis, TimeUnit.MILLISECONDS));
		String sent = "give-back-retry-" + UUID.randomUUID();
		// the attempt reaches Redis, then is not confirmed in time: one a retry would
		// follow
		AtomicInteger attempts = new AtomicInteger();
		CompletableFuture<Boolean> done = giveBack.retried("orders", "3 permit(s) on [k]",
				() -> CompletableFuture
					.supplyAsync(() -> redis.opsForValue().increment(sent + attempts.incrementAndGet()))
					.thenCompose((count) -> CompletableFuture
						.failedFuture(new QueryTimeoutException("Redis did not confirm the give-back"))));
		assertThat(done.get(5, TimeUnit.SECONDS)).isFalse();
		assertThat(attempts).as("no retry was sent").hasValue(1);
		Counter failed = registry.find("redkit.ratelimit.refunds").tag("outcome", "failed").counter();
		assertThat(failed).isNotNull();
		assertThat(failed.count()).isEqualTo(1);
		assertThat(output).contains("WARN").contains("could not give back 3 permit(s) on [k] after 1 attempt(s)");
	}

}
