package io.github.redkit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import io.github.redkit.testsupport.CommandLog;
import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.RedisServer;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Measures contenders against the same Redis in interleaved rounds: each round gives
 * every contender a warm-up and a timed slice (a latency histogram and {@code INFO
 * commandstats}), in alternating order, so that a shared machine's slow drift weighs on
 * all contenders alike instead of on whichever ran last. The first round also counts
 * round trips with a short {@code MONITOR}ed run. Each contender's throughput relative to
 * the reference and its Redis CPU per unit are printed per round too, for their spread.
 */
final class BenchmarkRunner {

	private static final int ROUND_TRIP_SAMPLE = 20;

	private final RedisServer redis;

	private final Duration warmup;

	private final Duration duration;

	private final int rounds;

	private final boolean commandCosts;

	BenchmarkRunner(RedisServer redis, Duration warmup, Duration duration, int rounds) {
		this(redis, warmup, duration, rounds, false);
	}

	/**
	 * A runner that may also split each contender's Redis time over the commands run.
	 * @param commandCosts whether to print what each command cost per unit of work
	 */
	BenchmarkRunner(RedisServer redis, Duration warmup, Duration duration, int rounds, boolean commandCosts) {
		this.redis = redis;
		this.warmup = warmup;
		this.duration = duration;
		this.rounds = rounds;
		this.commandCosts = commandCosts;
	}

	List<Result> run(Suite suite, List<Integer> threadCounts) {
		List<Result> results = new ArrayList<>();
		List<Function<RedisServer, Contender>> factories = suite.contenders();
		for (int threads : threadCounts) {
			Slices[] slices = new Slices[factories.size()];
			Slices[][] perRound = new Slices[factories.size()][this.rounds];
			for (int round = 0; round < this.rounds; round++) {
				for (int i = 0; i < factories.size(); i++) {
					int index = (round % 2 == 0) ? i : factories.size() - 1 - i;
					this.redis.flushAll();
					try (Contender contender = factories.get(index).apply(this.redis)) {
						Slices measured = measure(contender, threads, round == 0);
						perRound[index][round] = measured;
						slices[index] = (slices[index] != null) ? slices[index].plus(measured) : measured;
					}
					catch (Exception ex) {
						throw new IllegalStateException("Benchmark of " + suite.capability() + " failed", ex);
					}
				}
			}
			double reference = slices[0].opsPerSecond();
			for (Slices measured : slices) {
				Result result = measured.result(suite.capability(), threads, reference);
				System.out.printf(
						"  %-50s %2d threads %,12.0f ops/s  %.2f x  p50 %8.1f us  p99 %8.1f us  Redis CPU %5.1f us/op  scripts %5.1f us/op  client CPU %5.1f us/op  %5.2f commands/op%s%n",
						result.contender(), threads, result.opsPerSecond(), result.ratio(), result.p50Micros(),
						result.p99Micros(), result.redisCpuMicrosPerOp(), result.redisScriptMicrosPerOp(),
						result.clientCpuMicrosPerOp(), result.commandsPerOp(), ResultTable.keptRecords(result));
				results.add(result);
			}
			for (int i = 0; i < slices.length; i++) {
				printRounds(slices[i], perRound[i], perRound[0], threads);
			}
		}
		return results;
	}

	private void printRounds(Slices total, Slices[] rounds, Slices[] reference, int threads) {
		StringBuilder ratios = new StringBuilder();
		StringBuilder cpu = new StringBuilder();
		for (int round = 0; round < rounds.length; round++) {
			String separator = (round > 0) ? " / " : "";
			ratios.append(separator)
				.append(String.format(Locale.ROOT, "%.2f",
						rounds[round].opsPerSecond() / reference[round].opsPerSecond()));
			cpu.append(separator).append(String.format(Locale.ROOT, "%.1f", rounds[round].cpuMicrosPerUnit()));
		}
		System.out.printf("    %-50s %2d threads  rounds: x reference %s  Redis CPU us/op %s%n", total.contender(),
				threads, ratios, cpu);
		if (this.commandCosts) {
			System.out.print(total.costs().perUnit(total.unitCount()));
		}
	}

	private Slices measure(Contender contender, int threads, boolean countRoundTrips) throws InterruptedException {
		String records = contender.keptRecords();
		KeptRecords.Before beforeRecords = (records != null) ? KeptRecords.Before.of(this.redis) : null;
		drive(contender, threads, this.warmup.dividedBy(this.rounds), 1_000_000);
		double roundTrips = Double.NaN;
		if (countRoundTrips) {
			CommandLog log = CommandLog.record(this.redis, () -> {
				for (int i = 0; i < ROUND_TRIP_SAMPLE; i++) {
					contender.operate(0, i);
				}
			});
			roundTrips = (double) log.roundTrips() / ROUND_TRIP_SAMPLE / contender.unitsPerOperation();
		}
		CommandCost costsBefore = this.commandCosts ? CommandCost.read(this.redis) : CommandCost.NONE;
		CommandStats before = this.redis.commandStats();
		long cpuBefore = RedisCpu.micros(this.redis);
		long scriptsBefore = RedisCpu.scriptMicros(this.redis);
		long clientBefore = ClientCpu.nanos();
		long start = System.nanoTime();
		Histogram histogram = drive(contender, threads, this.duration.dividedBy(this.rounds), 2_000_000);
		long nanos = System.nanoTime() - start;
		long client = ClientCpu.nanos() - clientBefore;
		long cpu = RedisCpu.micros(this.redis) - cpuBefore;
		long scripts = RedisCpu.scriptMicros(this.redis) - scriptsBefore;
		CommandStats used = this.redis.commandStats().since(before);
		CommandCost costs = this.commandCosts ? CommandCost.read(this.redis).since(costsBefore) : CommandCost.NONE;
		KeptRecords kept = (records != null && beforeRecords != null)
				? KeptRecords.since(this.redis, beforeRecords, records) : KeptRecords.NONE;
		return new Slices(contender.name(), histogram, nanos, used.total(), cpu, scripts, client, roundTrips,
				contender.unitsPerOperation(), kept, costs);
	}

	/**
	 * What the timed slices of one contender add up to; counts are per unit of work.
	 */
	private record Slices(String contender, Histogram histogram, long nanos, long commands, long cpuMicros,
			long scriptMicros, long clientNanos, double roundTrips, int units, KeptRecords kept, CommandCost costs) {

		Slices plus(Slices other) {
			Histogram sum = this.histogram.copy();
			sum.add(other.histogram);
			return new Slices(this.contender, sum, this.nanos + other.nanos, this.commands + other.commands,
					this.cpuMicros + other.cpuMicros, this.scriptMicros + other.scriptMicros,
					this.clientNanos + other.clientNanos,
					Double.isNaN(this.roundTrips) ? other.roundTrips : this.roundTrips, this.units,
					this.kept.plus(other.kept), this.costs.plus(other.costs));
		}

		double opsPerSecond() {
			return unitCount() / (this.nanos / 1e9);
		}

		double cpuMicrosPerUnit() {
			return this.cpuMicros / unitCount();
		}

		double unitCount() {
			return (double) this.histogram.getTotalCount() * this.units;
		}

		Result result(String capability, int threads, double reference) {
			return new Result(capability, this.contender, threads, opsPerSecond(),
					this.histogram.getValueAtPercentile(50) / 1000.0, this.histogram.getValueAtPercentile(99) / 1000.0,
					this.commands / unitCount(), this.roundTrips, this.cpuMicros / unitCount(),
					this.scriptMicros / unitCount(), this.clientNanos / 1000.0 / unitCount(),
					opsPerSecond() / reference, this.kept.usagePerRecord(), this.kept.growthPerRecord());
		}

	}

	private Histogram drive(Contender contender, int threads, Duration time, long iterationOffset)
			throws InterruptedException {
		if (contender instanceof ReactiveContender reactive) {
			return driveReactive(reactive, threads, time, iterationOffset);
		}
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

	/**
	 * Keeps {@code concurrency} operations in flight from one subscription until the
	 * deadline: each completed operation lets the next one start, on whichever thread
	 * completed it (Lettuce's event loop), as a reactive application would.
	 */
	private Histogram driveReactive(ReactiveContender contender, int concurrency, Duration time, long iterationOffset) {
		ConcurrentHistogram histogram = new ConcurrentHistogram(3_600_000_000_000L, 3);
		long deadline = System.nanoTime() + time.toNanos();
		AtomicLong iterations = new AtomicLong(iterationOffset);
		try {
			Flux.<Long>generate((sink) -> sink.next(iterations.getAndIncrement()))
				.takeWhile((iteration) -> System.nanoTime() < deadline)
				.flatMap((iteration) -> Mono.defer(() -> {
					long begin = System.nanoTime();
					return contender.operation(iteration)
						.doOnTerminate(() -> histogram.recordValue(System.nanoTime() - begin));
				}), concurrency)
				.blockLast();
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException(contender.name() + " failed", ex);
		}
		Histogram total = new Histogram(3_600_000_000_000L, 3);
		total.add(histogram);
		return total;
	}

}
