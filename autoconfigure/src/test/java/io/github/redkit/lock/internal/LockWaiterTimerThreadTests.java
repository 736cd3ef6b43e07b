package io.github.redkit.lock.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A waiter that must not block and is not woken ends its wait on Redkit's threads, never
 * on the JDK's one timer thread ({@code CompletableFutureDelayScheduler}): what follows
 * the wait (the next attempt, a borrow of a pooled connection) would otherwise delay
 * every timeout of the process.
 */
class LockWaiterTimerThreadTests {

	@Test
	void aWaitThatTimesOutEndsOffTheJdksTimerThread() {
		LockWaiters.Waiter waiter = new LockWaiters.Waiter("lock-timer");
		CompletableFuture<String> endedOn = waiter.awaitAsync(Duration.ofMillis(20))
			.thenApply((ignored) -> Thread.currentThread().getName());
		assertThat(endedOn).succeedsWithin(Duration.ofSeconds(10))
			.asString()
			.doesNotContain("CompletableFutureDelayScheduler");
	}

	@Test
	void aWokenWaitEndsAtOnce() {
		LockWaiters.Waiter waiter = new LockWaiters.Waiter("lock-woken");
		CompletableFuture<?> ended = waiter.awaitAsync(Duration.ofSeconds(30));
		assertThat(waiter.wake()).isTrue();
		assertThat(ended).succeedsWithin(Duration.ofSeconds(1));
	}

}
