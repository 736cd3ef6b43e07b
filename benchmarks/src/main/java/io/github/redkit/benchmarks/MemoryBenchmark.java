package io.github.redkit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RespClient;

/**
 * Measures the Redis memory each contender keeps per identifier: {@code used_memory} of
 * {@code INFO memory} (after {@code MEMORY PURGE}) before and after creating many
 * identifiers on an empty database, divided by the identifiers still alive at the end
 * ({@code DBSIZE} over the keys one identifier makes). Each contender is measured twice:
 * after one call per identifier, and after {@link #FULL_CALLS} calls (a whole limit). A
 * warm-up on throwaway identifiers runs first, so that connections, loaded scripts and
 * the client's output buffers are already in the "before" figure.
 */
final class MemoryBenchmark {

	/**
	 * The calls per identifier of the second measurement: the limit of every window
	 * shape.
	 */
	static final int FULL_CALLS = 10;

	private static final int WARMUP_IDENTIFIERS = 2_000;

	private static final String PROBE = "user-p00000";

	private final RedisServer redis;

	private final int identifiers;

	private final int threads;

	MemoryBenchmark(RedisServer redis, int identifiers, int threads) {
		this.redis = redis;
		this.identifiers = identifiers;
		this.threads = threads;
	}

	List<MemoryResult> run(List<Function<RedisServer, MemoryContender>> factories) {
		List<MemoryResult> results = new ArrayList<>();
		try (RespClient admin = this.redis.client(this.redis.port())) {
			for (Function<RedisServer, MemoryContender> factory : factories) {
				this.redis.flushAll();
				try (MemoryContender contender = factory.apply(this.redis)) {
					MemoryResult.Measurement one = measure(contender, admin, 1);
					MemoryResult.Measurement full = measure(contender, admin, FULL_CALLS);
					MemoryResult result = new MemoryResult(contender.name(), contender.windows(), one, full);
					System.out.printf("  %-40s %-22s 1 call: %s%n  %-40s %-22s %d calls: %s%n", result.contender(),
							result.windows(), one, "", "", FULL_CALLS, full);
					results.add(result);
				}
			}
		}
		return results;
	}

	private MemoryResult.Measurement measure(MemoryContender contender, RespClient admin, int calls) {
		this.redis.flushAll();
		int probeAllowed = contender.acquire(PROBE, calls);
		if (probeAllowed != calls) {
			throw new IllegalStateException(contender.name() + ": " + probeAllowed + " of " + calls + " calls allowed");
		}
		long keysPerIdentifier = dbSize(admin);
		String stores = StoredKeys.describe(admin, PROBE);
		drive(contender, "user-w", WARMUP_IDENTIFIERS, calls);
		this.redis.flushAll();
		awaitRoomInMinute(admin);
		long before = usedMemory(admin);
		long start = System.nanoTime();
		long allowed = drive(contender, "user-", this.identifiers, calls);
		long nanos = System.nanoTime() - start;
		long after = usedMemory(admin);
		long keys = dbSize(admin);
		return new MemoryResult.Measurement(this.identifiers, calls, allowed, nanos, before, after, keys,
				keysPerIdentifier, stores);
	}

	/**
	 * Calls the contender for {@code count} identifiers from several threads.
	 * @return the calls allowed
	 */
	private long drive(MemoryContender contender, String prefix, int count, int calls) {
		AtomicInteger next = new AtomicInteger();
		AtomicInteger allowed = new AtomicInteger();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < this.threads; t++) {
			Thread worker = new Thread(() -> {
				try {
					for (int i = next.getAndIncrement(); i < count
							&& failure.get() == null; i = next.getAndIncrement()) {
						allowed.addAndGet(contender.acquire(prefix + String.format("%06d", i), calls));
					}
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
				}
			}, "memory-" + t);
			worker.start();
			workers.add(worker);
		}
		for (Thread worker : workers) {
			try {
				worker.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted", ex);
			}
		}
		if (failure.get() != null) {
			throw new IllegalStateException(contender.name() + " failed", failure.get());
		}
		return allowed.get();
	}

	/**
	 * Waits for the next minute when the current one (Redis' clock) is in its last 20
	 * seconds, so that state kept to the end of a calendar minute (a fixed window) is not
	 * expired while it is counted.
	 */
	private static void awaitRoomInMinute(RespClient admin) {
		List<?> time = (List<?>) StoredKeys.call(admin, "TIME");
		long second = Long.parseLong(time.get(0).toString()) % 60;
		if (second >= 40) {
			sleep(TimeUnit.SECONDS.toMillis(60 - second) + 200);
		}
	}

	private static long usedMemory(RespClient admin) {
		try {
			admin.call("MEMORY", "PURGE");
		}
		catch (RespClient.RespErrorException ex) {
			// not jemalloc: used_memory is still what the allocator handed out
		}
		String info = admin.callForString("INFO", "memory");
		return info.lines()
			.filter((line) -> line.startsWith("used_memory:"))
			.map((line) -> Long.parseLong(line.substring("used_memory:".length()).trim()))
			.findFirst()
			.orElseThrow();
	}

	private static long dbSize(RespClient admin) {
		return (Long) StoredKeys.call(admin, "DBSIZE");
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

}
