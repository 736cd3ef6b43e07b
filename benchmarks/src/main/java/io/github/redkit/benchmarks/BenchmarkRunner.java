package io.github.redkit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import io.github.redkit.test.CommandLog;
import io.github.redkit.test.CommandStats;
import io.github.redkit.test.RedisServer;
import org.HdrHistogram.Histogram;

/**
 * Measures contenders one after the other against the same Redis: a warm-up, a timed run
 * with a latency histogram and {@code INFO commandstats}, and a short {@code MONITOR}ed
 * run to count round trips.
 */
final class BenchmarkRunner {

	private static final int ROUND_TRIP_SAMPLE = 20;

	private final RedisServer redis;

	private final Duration warmup;

	private final Duration duration;

	BenchmarkRunner(RedisServer redis, Duration warmup, Duration duration) {
		this.redis = redis;
		this.warmup = warmup;
		this.duration = duration;
	}

	List<Result> run(Suite suite, List<Integer> threadCounts) {
		List<Result> results = new ArrayList<>();
		for (int threads : threadCounts) {
			List<Result> atThisCount = new ArrayList<>();
			for (Function<RedisServer, Contender> factory : suite.contenders()) {
				this.redis.flushAll();
				try (Contender contender = factory.apply(this.redis)) {
					atThisCount.add(measure(suite.capability(), contender, threads));
				}
				catch (Exception ex) {
					throw new IllegalStateException("Benchmark of " + suite.capability() + " failed", ex);
				}
			}
			double reference = atThisCount.get(0).opsPerSecond();
			atThisCount.forEach((result) -> results.add(result.withRatio(result.opsPerSecond() / reference)));
		}
		return results;
	}

	private Result measure(String capability, Contender contender, int threads) throws InterruptedException {
		drive(contender, threads, this.warmup, 1_000_000);
		CommandLog log = CommandLog.record(this.redis, () -> {
			for (int i = 0; i < ROUND_TRIP_SAMPLE; i++) {
				contender.operate(0, i);
			}
		});
		double roundTrips = (double) log.roundTrips() / ROUND_TRIP_SAMPLE;
		CommandStats before = this.redis.commandStats();
		long start = System.nanoTime();
		Histogram histogram = drive(contender, threads, this.duration, 2_000_000);
		double seconds = (System.nanoTime() - start) / 1e9;
		CommandStats used = this.redis.commandStats().since(before);
		long ops = histogram.getTotalCount();
		Result result = new Result(capability, contender.name(), threads, ops / seconds,
				histogram.getValueAtPercentile(50) / 1000.0, histogram.getValueAtPercentile(99) / 1000.0,
				(double) used.total() / ops, roundTrips, 1.0);
		System.out.printf("  %-45s %2d threads %,12.0f ops/s  p50 %8.1f us  p99 %8.1f us%n", contender.name(), threads,
				result.opsPerSecond(), result.p50Micros(), result.p99Micros());
		return result;
	}

	private Histogram drive(Contender contender, int threads, Duration time, long iterationOffset)
			throws InterruptedException {
		Histogram total = new Histogram(3_600_000_000_000L, 3);
		long deadline = System.nanoTime() + time.toNanos();
		CountDownLatch done = new CountDownLatch(threads);
		AtomicReference<Throwable> failure = new AtomicReference<>();
		List<Histogram> perThread = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			Histogram histogram = new Histogram(3_600_000_000_000L, 3);
			perThread.add(histogram);
			int thread = t;
			Thread worker = new Thread(() -> {
				try {
					long iteration = iterationOffset;
					while (System.nanoTime() < deadline) {
						long begin = System.nanoTime();
						contender.operate(thread, iteration++);
						histogram.recordValue(System.nanoTime() - begin);
					}
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
				}
				finally {
					done.countDown();
				}
			}, "bench-" + t);
			worker.start();
		}
		done.await();
		if (failure.get() != null) {
			throw new IllegalStateException(contender.name() + " failed", failure.get());
		}
		perThread.forEach(total::add);
		return total;
	}

}
