package io.github.redkit.concurrency;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.concurrency.ConcurrencyLimitAutoConfiguration;
import io.github.redkit.concurrency.internal.RedisConcurrencyLimiter;
import io.github.redkit.core.ClientPause;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RespClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every way a permit ends, attacked at once on a real Redis: blocking callers (some
 * interrupted while the permit is taken), callers of {@code tryAcquireAsync} that give up
 * on their future, {@code @ConcurrencyLimited} {@code Mono}, {@code Flux} and
 * {@code CompletableFuture} methods whose subscribers time out or cancel at random
 * moments (before the acquire answers, after it, while the body runs), bodies that fail
 * or never complete; meanwhile {@code CLIENT PAUSE} makes acquires, renewals and releases
 * answer late or time out. Once every caller is done, within a lease (plus the longest
 * pause and a margin) Redis holds no place, and no script is sent any more: no permit is
 * left renewed by a holder that is gone (issue 43's soak violation, "not every place was
 * free after every holder stopped").
 */
class ConcurrencyPermitEndsTests {

	private static final Duration LEASE = Duration.ofMillis(300);

	private static final Duration LONGEST_PAUSE = Duration.ofMillis(250);

	private static final Duration CALLERS_RUN = Duration.ofSeconds(4);

	private static final int CALLERS = 8;

	private static final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor((task) -> {
		Thread thread = new Thread(task, "permit-ends-timer");
		thread.setDaemon(true);
		return thread;
	});

	@PrivateRedis
	private static RedisServer redis;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedkitAutoConfiguration.class, ConcurrencyLimitAutoConfiguration.class))
		.withPropertyValues("redkit.concurrency-limit.timeout=100ms", "redkit.concurrency-limit.failure-cooldown=0s",
				"redkit.concurrency-limit.limits.two.limit=2",
				"redkit.concurrency-limit.limits.two.lease=" + LEASE.toMillis() + "ms", "spring.data.redis.timeout=10s")
		.withBean(LimitedService.class);

	@AfterAll
	static void stopTimer() {
		timer.shutdownNow();
	}

	@Test
	void noPlaceStaysHeldAndNoRenewalRunsOnceEveryCallerIsDone() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("redkit.key-prefix=ends-" + UUID.randomUUID())
			.run((context) -> {
				warm(context);
				List<Thread> callers = new ArrayList<>();
				long until = System.nanoTime() + CALLERS_RUN.toNanos();
				AtomicLong calls = new AtomicLong();
				for (int i = 0; i < CALLERS; i++) {
					Thread caller = new Thread(() -> {
						while (System.nanoTime() < until) {
							call(context);
							calls.incrementAndGet();
						}
					}, "caller-" + i);
					caller.start();
					callers.add(caller);
				}
				Thread pauses = new Thread(() -> pauseAtRandom(until), "pauses");
				pauses.start();
				for (Thread caller : callers) {
					caller.join(60_000);
					assertThat(caller.isAlive()).as(caller.getName() + " returned").isFalse();
				}
				pauses.join();
				assertThat(calls.get()).as("calls made").isGreaterThan(CALLERS * 10L);
				assertNoPlaceHeldAndNothingSent(context);
			});
	}

	@Test
	void noPlaceStaysHeldOnceTheContextStopsWithCallsInFlight() {
		String prefix = "ends-stop-" + UUID.randomUUID();
		List<String> keys = new ArrayList<>();
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("redkit.key-prefix=" + prefix)
			.run((context) -> {
				warm(context);
				keys.add(redisKey(context, "k0"));
				ConcurrencyLimiter limiter = context.getBean(ConcurrencyLimiter.class);
				assertThat(limiter.tryAcquire("two", "k0")).isPresent();
				context.getBean(LimitedService.class).mono("k0", Mono.never()).subscribe();
				await().atMost(Duration.ofSeconds(10)).until(() -> zCard(keys.get(0)) == 2);
			});
		await("the leases of the permits held when the context stopped end").atMost(LEASE.plus(Duration.ofSeconds(2)))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> zCard(keys.get(0)) == 0);
	}

	private static void warm(ConfigurableApplicationContext context) {
		// connected and the scripts loaded before the pauses, so that only the calls wait
		LimitedService service = context.getBean(LimitedService.class);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> context.getBean(ConcurrencyLimiter.class).tryAcquire("two", "warm").map((permit) -> {
				permit.close();
				return permit.acquired();
			}).orElse(false));
		assertThat(service.mono("warm", Mono.just("ok")).block(Duration.ofSeconds(10))).isEqualTo("ok");
	}

	private static void call(ConfigurableApplicationContext context) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		String key = "k" + random.nextInt(2);
		long hold = (random.nextInt(5) == 0) ? LEASE.toMillis() + random.nextInt((int) LEASE.toMillis())
				: random.nextInt(30);
		ConcurrencyLimiter limiter = context.getBean(ConcurrencyLimiter.class);
		LimitedService service = context.getBean(LimitedService.class);
		switch (random.nextInt(5)) {
			case 0 -> blocking(limiter, key, hold, random.nextInt(3) == 0 ? random.nextInt(150) : -1);
			case 1 -> asynchronous(limiter, key, hold, random.nextInt(3) == 0 ? 0 : random.nextInt(150));
			case 2 -> mono(service, key, hold, random);
			case 3 -> flux(service, key, hold, random);
			default -> future(service, key, hold, random);
		}
	}

	/**
	 * A blocking caller, interrupted {@code interruptAt} ms after it starts (never when
	 * negative).
	 */
	private static void blocking(ConcurrencyLimiter limiter, String key, long hold, long interruptAt) {
		Thread caller = Thread.currentThread();
		var interrupt = (interruptAt >= 0) ? timer.schedule(caller::interrupt, interruptAt, TimeUnit.MILLISECONDS)
				: null;
		try {
			Optional<ConcurrencyPermit> permit = limiter.tryAcquire("two", key);
			if (permit.isPresent()) {
				try (ConcurrencyPermit held = permit.get()) {
					LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(hold));
				}
			}
		}
		catch (RuntimeException ex) {
			// refused or failed: nothing held
		}
		finally {
			if (interrupt != null && !interrupt.cancel(false)) {
				// it may have fired or be firing: wait for it, then consume it
				while (!interrupt.isDone()) {
					Thread.onSpinWait();
				}
			}
			Thread.interrupted();
		}
	}

	/**
	 * A caller that waits {@code waitMillis} at most for its permit and then gives up on
	 * the future: cancelled in time, the limiter gives the permit back; answered
	 * meanwhile (the cancel comes too late), the permit is the caller's to give back.
	 */
	private static void asynchronous(ConcurrencyLimiter limiter, String key, long hold, long waitMillis) {
		CompletableFuture<Optional<ConcurrencyPermit>> future = limiter.tryAcquireAsync("two", key);
		Optional<ConcurrencyPermit> permit;
		try {
			permit = future.get(waitMillis, TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			if (future.cancel(true)) {
				return;
			}
			permit = future.join();
		}
		catch (InterruptedException | ExecutionException ex) {
			throw new IllegalStateException(ex);
		}
		permit.ifPresent((held) -> {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(hold));
			(ThreadLocalRandom.current().nextBoolean() ? held.closeAsync() : CompletableFuture.runAsync(held::close))
				.join();
		});
	}

	private static void mono(LimitedService service, String key, long hold, ThreadLocalRandom random) {
		Mono<String> body = switch (random.nextInt(4)) {
			case 0 -> Mono.just("x");
			case 1 -> Mono.delay(Duration.ofMillis(hold)).thenReturn("x");
			case 2 -> Mono.delay(Duration.ofMillis(hold)).then(Mono.error(new IllegalStateException("body failed")));
			default -> Mono.never();
		};
		service.mono(key, body)
			.timeout(Duration.ofMillis(1 + random.nextInt((int) hold + 100)))
			.onErrorResume((ex) -> Mono.empty())
			.block(Duration.ofSeconds(30));
	}

	private static void flux(LimitedService service, String key, long hold, ThreadLocalRandom random) {
		Flux<String> body = switch (random.nextInt(4)) {
			case 0 -> Flux.just("a", "b");
			case 1 -> Flux.interval(Duration.ofMillis(1 + hold / 3)).take(3).map(String::valueOf);
			case 2 -> Flux.concat(Flux.just("a"),
					Mono.delay(Duration.ofMillis(hold)).then(Mono.error(new IllegalStateException("body failed"))));
			default -> Flux.never();
		};
		Flux<String> called = service.flux(key, body);
		if (random.nextBoolean()) {
			// cancels once the first element arrives
			called = called.take(1);
		}
		called.timeout(Duration.ofMillis(1 + random.nextInt((int) hold + 100)))
			.onErrorResume((ex) -> Flux.empty())
			.blockLast(Duration.ofSeconds(30));
	}

	private static void future(LimitedService service, String key, long hold, ThreadLocalRandom random) {
		CompletableFuture<String> body = new CompletableFuture<>();
		switch (random.nextInt(3)) {
			case 0 -> timer.schedule(() -> body.complete("x"), hold, TimeUnit.MILLISECONDS);
			case 1 -> timer.schedule(() -> body.completeExceptionally(new IllegalStateException("body failed")), hold,
					TimeUnit.MILLISECONDS);
			default -> {
				// never completes: only the caller's cancel ends it
			}
		}
		CompletableFuture<String> result = service.future(key, body);
		try {
			result.get(1 + random.nextInt((int) hold + 100), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			result.cancel(true);
		}
		catch (InterruptedException | ExecutionException ex) {
			// failed or refused: it ended
		}
	}

	/**
	 * {@code CLIENT PAUSE} at random moments: an acquire, a renewal or a release sent
	 * meanwhile times out on the client and is still run by Redis when the pause ends.
	 */
	private static void pauseAtRandom(long until) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		while (System.nanoTime() < until) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100 + random.nextInt(300)));
			ClientPause.start(redis, Duration.ofMillis(20 + random.nextInt((int) LONGEST_PAUSE.toMillis() - 20)))
				.awaitEnd();
		}
	}

	private static void assertNoPlaceHeldAndNothingSent(ConfigurableApplicationContext context) {
		List<String> keys = List.of(redisKey(context, "k0"), redisKey(context, "k1"));
		await("every place is free within a lease after every caller is done")
			.atMost(LEASE.plus(LONGEST_PAUSE).plus(Duration.ofSeconds(1)))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> keys.stream().mapToLong(ConcurrencyPermitEndsTests::zCard).sum() == 0);
		long sent = commandsSent();
		// three renewal periods: a renewal still running would have been sent meanwhile
		await("no renewal is sent any more").during(LEASE)
			.atMost(LEASE.multipliedBy(3))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> commandsSent() == sent
					&& keys.stream().mapToLong(ConcurrencyPermitEndsTests::zCard).sum() == 0);
	}

	private static String redisKey(ConfigurableApplicationContext context, String key) {
		return ((RedisConcurrencyLimiter) context.getBean(ConcurrencyLimiter.class)).redisKey("two", key);
	}

	private static long zCard(String key) {
		try (RespClient client = redis.client(redis.port())) {
			return (Long) client.call("ZCARD", key);
		}
	}

	/**
	 * The commands Redis ran, but those this test sends to read it.
	 */
	private static long commandsSent() {
		try (RespClient client = redis.client(redis.port())) {
			long sent = 0;
			for (String line : client.callForString("INFO", "commandstats").split("\r\n")) {
				if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")
						&& !line.startsWith("cmdstat_zcard:") && !line.startsWith("cmdstat_client|")
						&& !line.startsWith("cmdstat_ping:") && !line.startsWith("cmdstat_hello:")) {
					String calls = line.substring(line.indexOf("calls=") + 6);
					sent += Long.parseLong(calls.substring(0, calls.indexOf(',')));
				}
			}
			return sent;
		}
	}

	static class LimitedService {

		@ConcurrencyLimited(value = "two", key = "#key")
		Mono<String> mono(String key, Mono<String> body) {
			return body;
		}

		@ConcurrencyLimited(value = "two", key = "#key")
		Flux<String> flux(String key, Flux<String> body) {
			return body;
		}

		@ConcurrencyLimited(value = "two", key = "#key")
		CompletableFuture<String> future(String key, CompletableFuture<String> body) {
			return body;
		}

	}

}
