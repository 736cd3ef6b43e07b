package io.github.redkit.core;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.NonBlockingThreads;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;
import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Spring Data Redis hands its shared Lettuce connection out under the factory's lock,
 * which a start, a reset or another caller may hold: a script sent from a non-blocking
 * thread before the runner holds that connection must not wait for the lock there. Two
 * first calls from Reactor's parallel threads met on it in CI, and BlockHound failed one
 * of them.
 */
@Tag("tests-apart")
class ReactiveSharedConnectionLockTests {

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	private static final LuaScript<Long> TIME_AND_KEYS = LuaScript.load("test_time_and_keys", Long.class);

	@Test
	void aFirstScriptFromANonBlockingThreadDoesNotWaitForTheFactorysLock() throws Exception {
		NonBlockingThreads.watch();
		LettuceConnectionFactory factory = RedisTopology.STANDALONE.server().createConnectionFactory();
		CompletableFuture<Void> release = new CompletableFuture<>();
		try {
			RedisScriptRunner runner = new RedisScriptRunner(factory);
			assertThat(runner.connectInBackground()).succeedsWithin(DEADLINE);
			Lock lock = factoryLock(factory);
			CompletableFuture<Void> held = new CompletableFuture<>();
			CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
				lock.lock();
				try {
					held.complete(null);
					release.join();
				}
				finally {
					lock.unlock();
				}
			});
			assertThat(held).succeedsWithin(DEADLINE);
			CompletableFuture<CompletableFuture<Long>> sent = new CompletableFuture<>();
			Schedulers.parallel().schedule(() -> {
				try {
					sent.complete(runner.executeAsync(TIME_AND_KEYS, List.of("redkit-test:lock:a"), "v"));
				}
				catch (Throwable ex) {
					sent.completeExceptionally(ex);
				}
			});
			assertThat(sent).as("the caller's thread returns while the lock is held").succeedsWithin(DEADLINE);
			release.complete(null);
			assertThat(holder).succeedsWithin(DEADLINE);
			assertThat(sent.join()).succeedsWithin(DEADLINE);
		}
		finally {
			release.complete(null);
			factory.destroy();
		}
	}

	private static Lock factoryLock(LettuceConnectionFactory factory) throws ReflectiveOperationException {
		// private in Spring Data Redis 4: the lock doInLock takes to hand the shared
		// connection out
		Field field = LettuceConnectionFactory.class.getDeclaredField("lock");
		field.setAccessible(true);
		return (Lock) field.get(factory);
	}

}
