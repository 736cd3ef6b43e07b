package io.github.redkit.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;

import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import io.lettuce.core.api.StatefulConnection;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * With pooled, dedicated connections ({@code spring.data.redis.lettuce.pool.enabled=true}
 * and no shared native connection), a script sent asynchronously keeps its connection
 * until Redis has answered: the pool never hands a connection with a command in flight to
 * another borrower (who could start a transaction or a blocking pop around it). Callers
 * that must not block hand the borrow to a few threads of the runner's, which never send
 * a script for a caller that gave up.
 */
@ExtendWith(ThreadDumpOnFailure.class)
class RedisScriptRunnerPoolTests {

	private static final LuaScript<Long> SLOW = LuaScript.load("test_slow", Long.class);

	private static final LuaScript<Long> TIME_AND_KEYS = LuaScript.load("test_time_and_keys", Long.class);

	private LettuceConnectionFactory factory;

	@BeforeEach
	void createPoolOfOne() {
		this.factory = pooledFactory(RedisServers.standalone(), 1, Duration.ofMillis(100));
	}

	@AfterEach
	void destroy() {
		this.factory.destroy();
	}

	@Test
	void aConnectionGoesBackToThePoolOnlyOnceItsScriptAnswered() {
		RedisScriptRunner runner = new RedisScriptRunner(this.factory);
		RedisScriptRunner.await(runner.executeAsync(SLOW, List.of("slow"), "0"), Duration.ofSeconds(5), "warm-up");
		// a connection the factory does not share is borrowed, and the script sent, by a
		// thread of the runner's, whatever the caller
		CompletableFuture<Long> inFlight = runner.executeAsync(SLOW, List.of("slow"), "1000");
		awaitBorrowed("the script");
		assertThat(inFlight).isNotDone();
		assertThat(RedisScriptRunner.await(inFlight, Duration.ofSeconds(5), "slow")).isEqualTo(1);
		assertThat(borrowAndPing()).isEqualTo("PONG");
	}

	@Test
	void aScriptItsCallerGaveUpOnKeepsItsConnectionUntilRedisAnswered() {
		RedisScriptRunner runner = new RedisScriptRunner(this.factory);
		RedisScriptRunner.await(runner.executeAsync(SLOW, List.of("slow"), "0"), Duration.ofSeconds(5), "warm-up");
		// the timeout leaves the runner's thread the time to borrow and send, on a loaded
		// machine too (1 s was not enough there: a script still waiting at its caller's
		// timeout is skipped, never borrowed)
		CompletableFuture<Long> timedOut = runner.executeAsync(SLOW, Duration.ofMillis(2500), List.of("slow"), "4000");
		awaitBorrowed("the script");
		assertThatExceptionOfType(QueryTimeoutException.class)
			.isThrownBy(() -> RedisScriptRunner.await(timedOut, Duration.ofSeconds(5), "slow"));
		assertThatException().as("the only connection is still busy with the timed-out script")
			.isThrownBy(this::borrowAndPing);
		// back in the pool once Redis answered
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (!pings() && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(borrowAndPing()).isEqualTo("PONG");
		CompletableFuture<Long> cancelled = runner.executeAsync(SLOW, List.of("slow"), "1000");
		awaitBorrowed("the script");
		assertThatExceptionOfType(QueryTimeoutException.class)
			.isThrownBy(() -> RedisScriptRunner.await(cancelled, Duration.ofMillis(100), "slow"));
		assertThat(cancelled).isCancelled();
		assertThatException().as("the only connection is still busy with the cancelled script")
			.isThrownBy(this::borrowAndPing);
	}

	@Test
	void aBlockingCallEndsWithinItsTimeoutWhileAnotherBorrowerHoldsThePoolsOnlyConnection() throws Exception {
		// Boot's default max-wait: a borrow waits as long as it takes
		LettuceConnectionFactory pool = pooledFactory(RedisServers.standalone(), 1, Duration.ofMillis(-1));
		RedisConnection held = null;
		try {
			RedisScriptRunner runner = new RedisScriptRunner(pool);
			RedisScriptRunner.await(runner.executeAsync(SLOW, List.of("slow"), "0"), Duration.ofSeconds(5), "warm-up");
			held = pool.getConnection();
			held.ping();
			// every capability's blocking call: a lock, a budget, a permit, a step
			CompletableFuture<Duration> failedAfter = CompletableFuture.supplyAsync(() -> {
				long start = System.nanoTime();
				assertThatExceptionOfType(QueryTimeoutException.class)
					.isThrownBy(() -> runner.execute(SLOW, Duration.ofMillis(300), List.of("slow"), "0"));
				return Duration.ofNanos(System.nanoTime() - start);
			}, (task) -> new Thread(task, "plain-caller").start());
			assertThat(failedAfter.get(5, TimeUnit.SECONDS)).isLessThan(Duration.ofSeconds(1));
		}
		finally {
			if (held != null) {
				held.close();
			}
			pool.destroy();
		}
	}

	@Test
	void aScriptReloadedAfterItsCallerGaveUpNeverJoinsTheNextBorrowersTransaction(@PrivateRedis RedisServer redis)
			throws Exception {
		// a borrow waits for the pool as long as the test needs
		LettuceConnectionFactory pool = pooledFactory(redis, 1, Duration.ofSeconds(20));
		List<String> keys = List.of("redkit-test:{reload}");
		try {
			RedisScriptRunner runner = new RedisScriptRunner(pool);
			RedisScriptRunner.await(runner.executeAsync(TIME_AND_KEYS, keys, "warm-up"), Duration.ofSeconds(5),
					"warm-up");
			// EVALSHA answers NOSCRIPT, and the runner sends EVAL on the same connection
			redis.callOnEveryNode("SCRIPT", "FLUSH");
			redis.pause();
			CompletableFuture<Long> timedOut = runner.executeAsync(TIME_AND_KEYS, Duration.ofMillis(100), keys, "late");
			assertThatExceptionOfType(QueryTimeoutException.class)
				.isThrownBy(() -> RedisScriptRunner.await(timedOut, Duration.ofSeconds(5), "late"));
			CompletableFuture<List<Object>> transaction = new CompletableFuture<>();
			Thread borrower = new Thread(() -> {
				try (RedisConnection connection = pool.getConnection()) {
					connection.multi();
					connection.stringCommands().set("redkit-test:own".getBytes(), "mine".getBytes());
					connection.stringCommands().get("redkit-test:own".getBytes());
					transaction.complete(connection.exec());
				}
				catch (Throwable ex) {
					transaction.completeExceptionally(ex);
				}
			});
			borrower.start();
			// the borrower waits for the pool, or for the answer to its MULTI
			long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
			while (!waitsInMulti(borrower) && System.nanoTime() < deadline) {
				Thread.onSpinWait();
			}
			redis.resume();
			assertThat(transaction.get(15, TimeUnit.SECONDS)).as("the transaction's own replies")
				.containsExactly(true, "mine".getBytes());
		}
		finally {
			redis.resume();
			pool.destroy();
		}
	}

	private static boolean waitsInMulti(Thread thread) {
		Thread.State state = thread.getState();
		return (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING)
				&& Arrays.stream(thread.getStackTrace()).anyMatch((frame) -> frame.getMethodName().equals("multi"));
	}

	@Test
	void aFrozenRedisKeepsTheHandOffToAFewThreadsAndRunsNoScriptForACallerThatGaveUp(@PrivateRedis RedisServer redis) {
		int maxActive = 2;
		Duration timeout = Duration.ofMillis(300);
		List<String> keys = List.of("redkit-test:{pool}");
		// Boot's default max-wait: a borrow waits for the pool as long as it takes
		LettuceConnectionFactory frozenPool = pooledFactory(redis, maxActive, Duration.ofMillis(-1));
		try {
			RedisScriptRunner runner = new RedisScriptRunner(frozenPool);
			fill(frozenPool, maxActive);
			RedisScriptRunner.await(runner.executeAsync(TIME_AND_KEYS, keys, "warm-up"), Duration.ofSeconds(5),
					"warm-up");
			CommandStats before = redis.commandStats();
			long idleHandOffThreads = threads(RedisScriptRunnerPoolTests::handingOff);
			// threads of earlier tests may still wait for pools of their own
			long alreadyWaiting = threads(RedisScriptRunnerPoolTests::waitingForAPool);
			redis.pause();
			List<Duration> failedAfter = Flux.range(0, 2000)
				.flatMap((i) -> timedOnParallel(runner, timeout, keys, "frozen"), 2000)
				.collectList()
				.block(Duration.ofSeconds(30));
			assertThat(failedAfter).hasSize(2000)
				.allSatisfy((elapsed) -> assertThat(elapsed).isLessThan(timeout.plusSeconds(1)));
			// other runners' idle threads carry the same name
			long handOffThreads = threads(RedisScriptRunnerPoolTests::handingOff) - idleHandOffThreads;
			long waitingForThePool = threads(RedisScriptRunnerPoolTests::waitingForAPool) - alreadyWaiting;
			redis.resume();
			List<Duration> afterThaw = Flux.range(0, 20)
				.flatMap((i) -> Mono
					.fromFuture(() -> runner.executeAsync(TIME_AND_KEYS, Duration.ofSeconds(5), keys, "thawed"))
					.subscribeOn(Schedulers.parallel())
					.map((time) -> Duration.ZERO))
				.collectList()
				.block(Duration.ofSeconds(30));
			assertThat(afterThaw).hasSize(20);
			CommandStats used = redis.commandStats().since(before);
			long scripts = used.calls("evalsha") + used.calls("eval");
			assertThat(scripts).as("scripts run after the thaw: %s", used).isBetween(20L, 20L + maxActive);
			assertThat(waitingForThePool).as("threads waiting for the pool").isLessThanOrEqualTo(maxActive);
			assertThat(handOffThreads).as("threads handing the calls to the pool").isLessThanOrEqualTo(maxActive);
		}
		finally {
			redis.resume();
			frozenPool.destroy();
		}
	}

	// the time a call took to fail with a timeout, sent from one of Reactor's
	// non-blocking threads
	private static Mono<Duration> timedOnParallel(RedisScriptRunner runner, Duration timeout, List<String> keys,
			String value) {
		return Mono.defer(() -> {
			long start = System.nanoTime();
			return Mono.fromFuture(() -> runner.executeAsync(TIME_AND_KEYS, timeout, keys, value))
				.map((time) -> Duration.ofDays(1))
				.onErrorResume(QueryTimeoutException.class,
						(ex) -> Mono.just(Duration.ofNanos(System.nanoTime() - start)));
		}).subscribeOn(Schedulers.parallel());
	}

	private static boolean waitingForAPool(Thread thread, StackTraceElement[] stack) {
		return Arrays.stream(stack).anyMatch((frame) -> frame.getMethodName().equals("borrowObject"));
	}

	private static boolean handingOff(Thread thread, StackTraceElement[] stack) {
		return thread.getName().startsWith("redkit-hand-off");
	}

	private static long threads(BiPredicate<Thread, StackTraceElement[]> filter) {
		return Thread.getAllStackTraces()
			.entrySet()
			.stream()
			.filter((thread) -> thread.getKey().isAlive() && filter.test(thread.getKey(), thread.getValue()))
			.count();
	}

	// idle connections up to the pool's size, so that a frozen Redis is not met by a
	// connect
	private static void fill(LettuceConnectionFactory factory, int connections) {
		List<RedisConnection> borrowed = new ArrayList<>();
		for (int i = 0; i < connections; i++) {
			RedisConnection connection = factory.getConnection();
			connection.ping();
			borrowed.add(connection);
		}
		borrowed.forEach(RedisConnection::close);
	}

	private static LettuceConnectionFactory pooledFactory(RedisServer redis, int maxActive, Duration maxWait) {
		GenericObjectPoolConfig<StatefulConnection<?, ?>> pool = new GenericObjectPoolConfig<>();
		pool.setMaxTotal(maxActive);
		pool.setMaxWait(maxWait);
		LettucePoolingClientConfiguration client = LettucePoolingClientConfiguration.builder()
			.poolConfig(pool)
			.commandTimeout(Duration.ofSeconds(10))
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(RedisServer.HOST, redis.port()), client);
		factory.setShareNativeConnection(false);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	// the runner's thread borrowed the pool's only connection: a borrow of the test's
	// fails (the pool's max-wait is 100 ms)
	private void awaitBorrowed(String what) {
		long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
		while (pings()) {
			assertThat(System.nanoTime()).as("%s borrowed the only connection", what).isLessThan(deadline);
		}
	}

	private boolean pings() {
		try {
			return "PONG".equals(borrowAndPing());
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	private String borrowAndPing() {
		try (RedisConnection connection = this.factory.getConnection()) {
			return connection.ping();
		}
	}

}
