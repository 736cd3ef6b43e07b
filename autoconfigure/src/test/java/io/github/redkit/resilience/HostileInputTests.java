package io.github.redkit.resilience;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.github.redkit.budget.Budgets;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.idempotency.StepOutcome;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The bad-input sweep, every capability on every topology: identifiers that look like key
 * syntax, hash tags, unicode or 10 KB strings neither break a key, nor move it to another
 * cluster slot (no CROSSSLOT), nor share state with a look-alike; empty identifiers are
 * clear errors; megabyte payloads arrive whole.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.SCRIPTS)
class HostileInputTests {

	/** Pairs that naive key building would confuse, and strings that break naive keys. */
	private static final List<String> HOSTILE = List.of("{", "}", "{}", "{user}", ":", "a:b", "a%3Ab", "a b", "\n",
			"ü漢字🙂", "null", "x".repeat(10_000), "x".repeat(10_000) + "y");

	@Parameter
	RedisTopology topology;

	// one application per topology: each test works on identifiers, a queue message and
	// operations of its own
	private static @Nullable ConfigurableApplicationContext shared;

	private ConfigurableApplicationContext context;

	@BeforeParameterizedClassInvocation
	static void startTheApplication(RedisTopology topology) {
		shared = FaultsApplication.start(topology.server());
	}

	@AfterParameterizedClassInvocation
	static void stopTheApplication() {
		if (shared != null) {
			shared.close();
			shared = null;
		}
	}

	@BeforeEach
	void useTheSharedApplication() {
		ConfigurableApplicationContext context = shared;
		if (context == null) {
			throw new IllegalStateException("The shared application did not start");
		}
		this.context = context;
	}

	@Test
	void hostileIdentifiersNeitherBreakKeysNorShareState() {
		RateLimiter limiter = this.context.getBean(RateLimiter.class);
		DistributedLocks locks = this.context.getBean(DistributedLocks.class);
		Budgets budgets = this.context.getBean(Budgets.class);
		IdempotentSteps steps = this.context.getBean(IdempotentSteps.class);
		String run = Long.toString(System.nanoTime());
		limiter.define("hostile-" + run, RateLimitPolicy.slidingWindow(RateLimitWindow.of(1, Duration.ofHours(1))));
		List<LockHandle> held = new ArrayList<>();
		try {
			for (String hostile : HOSTILE) {
				String id = hostile + run;
				assertThat(limiter.tryAcquire("hostile-" + run, id).allowed()).as("first call of %s", id).isTrue();
				assertThat(limiter.tryAcquire("hostile-" + run, List.of(id, "other" + run), 1).allowed())
					.as("second call of %s", id)
					.isFalse();
				held.add(locks.tryLock(id, Duration.ZERO, Duration.ofSeconds(30)).orElseThrow());
				assertThat(budgets.create(id, 10)).isTrue();
				assertThat(budgets.spend(id, 3, "op").remaining()).isEqualTo(7);
				assertThat(steps.claim(id, "step", Set.of(), null)).isEqualTo(StepOutcome.CLAIMED);
			}
			// no look-alike shared a counter, lock, budget or step with another
			for (String hostile : HOSTILE) {
				assertThat(budgets.remaining(hostile + run)).isEqualTo(7);
			}
		}
		finally {
			held.forEach(LockHandle::close);
		}
	}

	@Test
	void emptyIdentifiersAreClearErrors() {
		RateLimiter limiter = this.context.getBean(RateLimiter.class);
		DistributedLocks locks = this.context.getBean(DistributedLocks.class);
		Budgets budgets = this.context.getBean(Budgets.class);
		IdempotentSteps steps = this.context.getBean(IdempotentSteps.class);
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire("api", ""))
			.withMessageContaining("key");
		assertThatIllegalArgumentException().isThrownBy(() -> locks.tryLock("", Duration.ZERO, null));
		assertThatIllegalArgumentException().isThrownBy(() -> budgets.create("", 10));
		assertThatIllegalArgumentException().isThrownBy(() -> steps.claim("", "step", Set.of(), null));
	}

	@Test
	void megabytePayloadsArriveWhole() {
		QueueTemplate queues = this.context.getBean(QueueTemplate.class);
		IdempotentSteps steps = this.context.getBean(IdempotentSteps.class);
		FaultsApplication.Received received = this.context.getBean(FaultsApplication.Received.class);
		String big = "{\"}\u00fc".repeat(500_000) + System.nanoTime();
		queues.send(FaultsApplication.QUEUE, big);
		await().atMost(Duration.ofSeconds(15)).until(() -> received.queued.contains(big));
		String operation = "big-" + System.nanoTime();
		assertThat(steps.claim(operation, "step", Set.of(), null)).isEqualTo(StepOutcome.CLAIMED);
		steps.complete(operation, "step", big);
		assertThat(steps.claim(operation, "step", Set.of(), null)).isEqualTo(StepOutcome.DUPLICATE);
		assertThat(steps.result(operation, "step", String.class)).isEqualTo(big);
	}

}
