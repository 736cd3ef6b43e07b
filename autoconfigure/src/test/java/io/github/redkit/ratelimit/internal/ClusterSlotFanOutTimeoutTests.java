package io.github.redkit.ratelimit.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.testsupport.RedisTopology;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * On a Redis Cluster, a decision over identifiers in several slots whose caller's
 * decision is completed while the slots' answers are being combined (its timeout, a
 * cancel) gives back what every slot took: the caller got the failure mode, so nothing of
 * that call stays counted; a failure while combining them gives it back too. The scripts
 * run on the cluster; the test lands the timeout inside that window by completing the
 * caller's decision when the fan-out reads the first slot's answer.
 */
class ClusterSlotFanOutTimeoutTests {

	private static final int LIMIT = 1_000_000;

	private static final int SLOTS = 4;

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final PreparedLimit limit = PreparedLimit.of("race-" + UUID.randomUUID(),
			RateLimitPolicy.slidingWindow(RateLimitWindow.of(LIMIT, Duration.ofHours(1))),
			new RedisKeyspace("fan-out-test"));

	private final RedisConnectionFactory factory = RedisTopology.CLUSTER.connectionFactory();

	private final RedisScriptRunner runner = new RedisScriptRunner(this.factory);

	private final PermitGiveBack giveBack = new PermitGiveBack(this.runner, Duration.ofSeconds(5),
			new MicrometerRedkitMetrics(() -> this.registry));

	@Test
	void aTimeoutThatLandsWhileTheSlotsAnswersAreCombinedGivesBackWhatEverySlotTook() {
		assertNothingStaysCountedWhenTheFirstReadOfAnAnswer((decision) -> {
			// what the caller's timeout does (orTimeout)
			decision.completeExceptionally(new TimeoutException());
		});
	}

	@Test
	void aFailureWhileTheSlotsAnswersAreCombinedGivesBackWhatEverySlotTook() {
		assertNothingStaysCountedWhenTheFirstReadOfAnAnswer((decision) -> {
			throw new IllegalStateException("combining failed");
		});
	}

	private void assertNothingStaysCountedWhenTheFirstReadOfAnAnswer(
			Consumer<CompletableFuture<TakenPermits>> firstRead) {
		List<String> identifiers = identifiersInDistinctSlots();
		ClusterSlotFanOut direct = new ClusterSlotFanOut(this.runner, Duration.ofSeconds(5), this.giveBack);
		// connections to every master and the script loaded
		assertThat(direct.decide(this.limit, identifiers, 1).join().decision().allowed()).isTrue();
		ReadHookRunner hooked = new ReadHookRunner(this.factory);
		AtomicReference<CompletableFuture<TakenPermits>> caller = new AtomicReference<>();
		hooked.onFirstRead = () -> firstRead.accept(caller.get());
		CompletableFuture<TakenPermits> decision = new ClusterSlotFanOut(hooked, Duration.ofSeconds(5), this.giveBack)
			.decide(this.limit, identifiers, 1);
		caller.set(decision);
		hooked.answer.countDown();
		assertThat(decision).failsWithin(Duration.ofSeconds(10));
		assertThat(hooked.read).as("the fan-out read the slots' answers").isTrue();
		// every slot gives back what the call took
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(refunds("given-back")).isEqualTo(SLOTS));
		for (String identifier : identifiers) {
			assertThat(direct.decide(this.limit, List.of(identifier), 1).join().decision().remaining())
				.as("what stays counted on '%s'", identifier)
				.isEqualTo(LIMIT - 2);
		}
		assertThat(refunds("failed")).isZero();
	}

	private List<String> identifiersInDistinctSlots() {
		List<String> identifiers = new ArrayList<>();
		Set<Integer> slots = new HashSet<>();
		for (int i = 0; identifiers.size() < SLOTS; i++) {
			String identifier = "user-" + i;
			if (slots.add(ClusterSlotHashUtil.calculateSlot(this.limit.key(identifier)))) {
				identifiers.add(identifier);
			}
		}
		return identifiers;
	}

	private double refunds(String outcome) {
		Counter counter = this.registry.find("redkit.ratelimit.refunds")
			.tags("limit", this.limit.name(), "outcome", outcome)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	/**
	 * Sends the scripts to the cluster, and completes their answers once the test holds
	 * the caller's decision, as answers that run {@code onFirstRead} when the fan-out
	 * first reads one of them.
	 */
	static final class ReadHookRunner extends RedisScriptRunner {

		final CountDownLatch answer = new CountDownLatch(1);

		final AtomicBoolean read = new AtomicBoolean();

		volatile Runnable onFirstRead = () -> {
		};

		ReadHookRunner(RedisConnectionFactory connectionFactory) {
			super(connectionFactory);
		}

		@Override
		public <T> CompletableFuture<T> executeAsync(LuaScript<T> script, List<String> keys, byte[][] args) {
			HookedAnswer<T> hooked = new HookedAnswer<>(this);
			super.executeAsync(script, keys, args).whenCompleteAsync((value, ex) -> {
				try {
					this.answer.await(10, TimeUnit.SECONDS);
				}
				catch (InterruptedException interrupted) {
					Thread.currentThread().interrupt();
				}
				if (ex != null) {
					hooked.completeExceptionally(ex);
				}
				else {
					hooked.complete(value);
				}
			});
			return hooked;
		}

	}

	static final class HookedAnswer<T> extends CompletableFuture<T> {

		private final ReadHookRunner runner;

		HookedAnswer(ReadHookRunner runner) {
			this.runner = runner;
		}

		@Override
		public T join() {
			if (this.runner.read.compareAndSet(false, true)) {
				this.runner.onFirstRead.run();
			}
			return super.join();
		}

	}

}
