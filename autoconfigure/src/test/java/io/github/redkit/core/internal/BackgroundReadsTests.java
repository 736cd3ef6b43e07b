package io.github.redkit.core.internal;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * A gauge's background read: a read never blocks the caller, one read of a value at a
 * time, a late read makes the value unknown, a failed one too.
 */
class BackgroundReadsTests {

	private final ExecutorService executor = RedkitThreads.bounded(RedkitThreads.factory("background-reads-test"), 1);

	@AfterEach
	void stop() {
		this.executor.shutdownNow();
	}

	@Test
	void aReadThatDoesNotAnswerNeitherBlocksTheCallerNorRunsTwiceAndMakesTheValueUnknownOnceLate() {
		CountDownLatch answer = new CountDownLatch(1);
		// the first read answers once the test has looked: on an idle machine it could
		// otherwise answer before the first look
		CountDownLatch looked = new CountDownLatch(1);
		AtomicInteger reads = new AtomicInteger();
		BackgroundReads background = new BackgroundReads(Duration.ofMillis(50), this.executor);
		BackgroundReads.Value<Integer> value = background.value(() -> {
			int read = reads.incrementAndGet();
			try {
				((read == 1) ? looked : answer).await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return read;
		});
		assertThat(value.get()).as("before the first read").isNull();
		looked.countDown();
		await().atMost(Duration.ofSeconds(5)).until(() -> Integer.valueOf(1).equals(value.get()));
		// the second read hangs: the last value while it is young, unknown once late
		await().atMost(Duration.ofSeconds(5)).until(() -> reads.get() == 2);
		long start = System.nanoTime();
		await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5)).until(() -> value.get() == null);
		for (int i = 0; i < 100; i++) {
			value.get();
		}
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		assertThat(reads.get()).as("one read at a time").isEqualTo(2);
		answer.countDown();
		// the second read's value, or a later one's: a read asked for after it answers
		// at once
		await().atMost(Duration.ofSeconds(5)).until(() -> {
			Integer read = value.get();
			return read != null && read >= 2;
		});
		assertThat(value.age()).isNotNull();
	}

	@Test
	void aFailedReadMakesTheValueUnknownUntilAReadAnswersAgain() {
		AtomicBoolean down = new AtomicBoolean();
		BackgroundReads.Value<String> value = new BackgroundReads(Duration.ofMillis(50), this.executor).value(() -> {
			if (down.get()) {
				throw new IllegalStateException("Redis down");
			}
			return "read";
		});
		await().atMost(Duration.ofSeconds(5)).until(() -> "read".equals(value.get()));
		down.set(true);
		await().atMost(Duration.ofSeconds(5)).until(() -> value.get() == null);
		assertThat(value.age()).isNull();
		down.set(false);
		await().atMost(Duration.ofSeconds(5)).until(() -> "read".equals(value.get()));
	}

	@Test
	void aRefreshThatIsNotPositiveIsRefusedNamingIt() {
		assertThatIllegalArgumentException().isThrownBy(() -> new BackgroundReads(Duration.ZERO, this.executor))
			.withMessageContaining("refresh");
	}

}
