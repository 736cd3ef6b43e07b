package io.github.redkit.core;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import io.github.redkit.testsupport.NonBlockingThreads;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lettuce's writer lock ({@code SharedLock}, package-private, so reached reflectively)
 * parks a writer on an event loop while a connect or disconnect briefly holds the
 * endpoint exclusively; {@link NonBlockingThreads} allows that wait, and the exclusive
 * side's wait for it, and nothing more (a failure here inside Lettuce's {@code write}
 * left its writer count negative and wedged every later write).
 */
@Tag("tests-apart")
class ReactiveLettuceWriterLockTests {

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	@Test
	void aWriterOnANonBlockingThreadWaitsForTheExclusiveHolder() throws Exception {
		NonBlockingThreads.watch();
		Class<?> type = Class.forName("io.lettuce.core.protocol.SharedLock");
		Constructor<?> constructor = type.getDeclaredConstructor();
		constructor.setAccessible(true);
		Object sharedLock = constructor.newInstance();
		Method doExclusive = type.getDeclaredMethod("doExclusive", Supplier.class);
		Method incrementWriters = type.getDeclaredMethod("incrementWriters");
		Method decrementWriters = type.getDeclaredMethod("decrementWriters");
		for (Method method : new Method[] { doExclusive, incrementWriters, decrementWriters }) {
			method.setAccessible(true);
		}
		Field lockField = type.getDeclaredField("lock");
		lockField.setAccessible(true);
		ReentrantLock lock = (ReentrantLock) lockField.get(sharedLock);

		CountDownLatch held = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		CompletableFuture<Void> holder = CompletableFuture
			.runAsync(() -> invoke(doExclusive, sharedLock, (Supplier<Object>) () -> await(held, release)));
		assertThat(held.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
		CompletableFuture<Void> writer = new CompletableFuture<>();
		Schedulers.parallel().schedule(() -> {
			try {
				invoke(incrementWriters, sharedLock, null);
				invoke(decrementWriters, sharedLock, null);
				writer.complete(null);
			}
			catch (Throwable ex) {
				writer.completeExceptionally(ex);
			}
		});
		long deadline = System.nanoTime() + DEADLINE.toNanos();
		while (!lock.hasQueuedThreads() && !writer.isDone() && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		release.countDown();
		assertThat(holder).succeedsWithin(DEADLINE);
		assertThat(writer).succeedsWithin(DEADLINE);
	}

	private static Object await(CountDownLatch held, CountDownLatch release) {
		held.countDown();
		try {
			assertThat(release.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return null;
	}

	private static void invoke(Method method, Object target, Object argument) {
		try {
			if (argument != null) {
				method.invoke(target, argument);
			}
			else {
				method.invoke(target);
			}
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex.getCause());
		}
	}

}
