package io.github.redkit.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;

import org.springframework.boot.convert.DurationStyle;

/**
 * Runs Redkit side by side with its peers against one local Redis it starts, and prints
 * one Markdown table.
 * <p>
 * Usage: {@code java -jar benchmarks/target/redkit-benchmarks.jar [suite ...]
 * [--threads=1,16] [--warmup=2s] [--duration=5s] [--rounds=3]}; suites: {@code all}
 * (default) or any of {@link #SUITES}. Warm-up and duration are each contender's totals,
 * spread over the interleaved rounds. {@code --contenders=0,3} keeps only those
 * contenders of each suite, by position (the first becomes the reference): to profile one
 * of them alone.
 * <p>
 * {@code java -jar benchmarks/target/redkit-benchmarks.jar ratelimit-memory
 * [--identifiers=100000]} measures the Redis memory each rate limiter keeps per
 * identifier instead ({@link RateLimitMemorySuite}); {@code all} does not include it.
 * <p>
 * {@code java -jar benchmarks/target/redkit-benchmarks.jar lock-extend --server=valkey-8}
 * runs on another server of {@code .ci/servers} (Valkey 8.1 or Redis 8.0): the suite's
 * reference is a command only Valkey 8.1 and Redis 8.4 have, so {@code all} leaves it
 * out; so it does {@code lock-native}, which compares Redkit's native release there with
 * its script, {@code lock-delifeq} (Valkey 9.1: {@code --server=valkey-9}), which adds a
 * raw release by {@code DELIFEQ}, and {@code cache-unlock} ({@code valkey-9}), whose
 * unlock is {@code DELIFEQ} with native commands on. {@code queue-stream-ackdel} needs a
 * server with {@code XACKDEL} (Redis 8.2+; none of {@code .ci/servers} has it yet).
 * <p>
 * {@code --commandstats} prints, after each suite, what every command cost Redis per unit
 * of work ({@code INFO commandstats}: calls and {@code usec}, those inside scripts
 * included) for each contender: where a script's time goes.
 * <p>
 * {@code java -jar benchmarks/target/redkit-benchmarks.jar http [--connections=64]
 * [--paced-connections=4] [--paced-delay=10ms] [--paced-duration=5s] [--paced-slices=1]
 * [--servers=tomcat,netty] [--endpoints=limit1,lock]} measures what a real HTTP request
 * pays for each capability ({@link HttpBenchmark}, driven by {@code wrk}); there
 * {@code --warmup} and {@code --duration} are each slice's, per round, in whole seconds.
 * {@code all} does not include it.
 */
public final class BenchmarkMain {

	static final Map<String, Supplier<Suite>> SUITES = new LinkedHashMap<>();

	static {
		SUITES.put("baseline", ClientBaselineSuite::create);
		SUITES.put("ratelimit", RateLimitSuite::create);
		SUITES.put("ratelimit-cost", RateLimitCostSuite::create);
		SUITES.put("ratelimit-settle", RateLimitSettleSuite::create);
		SUITES.put("hot-key", HotKeySuite::create);
		SUITES.put("cache", CacheSuite::create);
		SUITES.put("cache-unlock", CacheUnlockSuite::create);
		SUITES.put("idempotency", IdempotencySuite::steps);
		SUITES.put("budget", IdempotencySuite::budgets);
		SUITES.put("lock", LockSuite::create);
		SUITES.put("lock-contention", LockContentionSuite::create);
		SUITES.put("lock-extend", LockExtendSuite::create);
		SUITES.put("lock-native", LockSuite::nativeRelease);
		SUITES.put("lock-delifeq", LockSuite::deleteIfEqual);
		SUITES.put("queue", QueueSuite::enqueue);
		SUITES.put("queue-dequeue", QueueSuite::dequeue);
		SUITES.put("queue-batch", QueueSuite::batches);
		SUITES.put("queue-stream", StreamQueueSuite::takeAck);
		SUITES.put("queue-stream-batch", StreamQueueSuite::batches);
		SUITES.put("queue-stream-ackdel", StreamQueueSuite::ackDelete);
		SUITES.put("reactive", ReactiveSuite::create);
		SUITES.put("regions", RegionSuite::create);
	}

	static final String MEMORY = "ratelimit-memory";

	static final String HTTP = "http";

	private static final int MEMORY_THREADS = 32;

	private BenchmarkMain() {
	}

	private static List<String> everyServersSuites() {
		return SUITES.keySet()
			.stream()
			.filter((name) -> !name.equals("lock-extend") && !name.equals("lock-native") && !name.equals("lock-delifeq")
					&& !name.equals("cache-unlock") && !name.equals("queue-stream-ackdel"))
			.toList();
	}

	public static void main(String[] args) {
		List<String> names = new ArrayList<>();
		List<Integer> threads = List.of(1, 16);
		Duration warmup = Duration.ofSeconds(2);
		Duration duration = Duration.ofSeconds(5);
		int rounds = 3;
		int identifiers = 100_000;
		Path charts = null;
		boolean memory = false;
		String server = null;
		List<Integer> only = List.of();
		boolean commandCosts = false;
		boolean http = false;
		int connections = 64;
		int pacedConnections = 4;
		Duration pacedDelay = Duration.ofMillis(10);
		Duration pacedDuration = null;
		int pacedSlices = 1;
		List<String> servers = List.of();
		List<String> endpoints = List.of();
		for (String arg : args) {
			if (arg.startsWith("--threads=")) {
				threads = Arrays.stream(arg.substring(10).split(",")).map(Integer::valueOf).toList();
			}
			else if (arg.startsWith("--warmup=")) {
				warmup = DurationStyle.detectAndParse(arg.substring(9));
			}
			else if (arg.startsWith("--duration=")) {
				duration = DurationStyle.detectAndParse(arg.substring(11));
			}
			else if (arg.startsWith("--rounds=")) {
				rounds = Integer.parseInt(arg.substring(9));
				if (rounds < 1) {
					throw new IllegalArgumentException("--rounds must be at least 1");
				}
			}
			else if (arg.startsWith("--contenders=")) {
				only = Arrays.stream(arg.substring(13).split(",")).map(Integer::valueOf).toList();
			}
			else if (arg.startsWith("--identifiers=")) {
				identifiers = Integer.parseInt(arg.substring(14));
			}
			else if (arg.startsWith("--charts=")) {
				charts = Path.of(arg.substring(9));
			}
			else if (arg.startsWith("--server=")) {
				server = arg.substring(9);
			}
			else if (arg.equals("--commandstats")) {
				commandCosts = true;
			}
			else if (arg.equals(MEMORY)) {
				memory = true;
			}
			else if (arg.equals(HTTP)) {
				http = true;
			}
			else if (arg.startsWith("--connections=")) {
				connections = Integer.parseInt(arg.substring(14));
			}
			else if (arg.startsWith("--paced-connections=")) {
				pacedConnections = Integer.parseInt(arg.substring(20));
			}
			else if (arg.startsWith("--paced-delay=")) {
				pacedDelay = DurationStyle.detectAndParse(arg.substring(14));
			}
			else if (arg.startsWith("--paced-duration=")) {
				pacedDuration = DurationStyle.detectAndParse(arg.substring(17));
			}
			else if (arg.startsWith("--paced-slices=")) {
				pacedSlices = Integer.parseInt(arg.substring(15));
			}
			else if (arg.startsWith("--servers=")) {
				servers = List.of(arg.substring(10).split(","));
			}
			else if (arg.startsWith("--endpoints=")) {
				endpoints = List.of(arg.substring(12).split(","));
			}
			else if (arg.equals("all")) {
				names.addAll(everyServersSuites());
			}
			else if (SUITES.containsKey(arg)) {
				names.add(arg);
			}
			else {
				throw new IllegalArgumentException(
						"Unknown argument '" + arg + "'; suites: " + SUITES.keySet() + ", " + MEMORY + " and " + HTTP);
			}
		}
		HttpBenchmark httpBenchmark = http
				? new HttpBenchmark(warmup, duration, (pacedDuration != null) ? pacedDuration : duration, pacedSlices,
						rounds, connections, pacedConnections, Math.toIntExact(pacedDelay.toMillis()))
				: null;
		List<HttpServerKind> httpServers = HttpServerKind.named(servers);
		List<HttpEndpoint> httpEndpoints = HttpEndpoint.named(endpoints);
		if (names.isEmpty() && !memory && !http) {
			names.addAll(everyServersSuites());
		}
		// another server (--server=valkey-8 or redis-8, from .ci/servers) is shared and
		// stopped when the JVM exits
		try (RedisServer redis = (server != null) ? RedisServers.named(server) : RedisServers.startStandalone()) {
			System.out.printf("Redis %s (%s), %d cores, Java %s%n", redis.version(), redis.description(),
					Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
			if (!names.isEmpty()) {
				BenchmarkRunner runner = new BenchmarkRunner(redis, warmup, duration, rounds, commandCosts);
				List<Result> results = new ArrayList<>();
				for (String name : names) {
					Suite suite = Objects.requireNonNull(SUITES.get(name), name).get().only(only);
					System.out.println("== " + suite.capability());
					List<Result> measured = runner.run(suite, threads);
					results.addAll(measured);
					if (charts != null) {
						Path chart = Charts.write(charts, name, measured);
						if (chart != null) {
							System.out.println("chart: " + chart);
						}
					}
				}
				System.out.println();
				System.out.println(ResultTable.markdown(results));
			}
			if (memory) {
				System.out.printf("== rate-limit memory per identifier (%,d identifiers, %d threads)%n", identifiers,
						MEMORY_THREADS);
				List<MemoryResult> results = new MemoryBenchmark(redis, identifiers, MEMORY_THREADS)
					.run(RateLimitMemorySuite.contenders());
				System.out.println();
				System.out.println(MemoryTable.markdown(results));
			}
			if (httpBenchmark != null) {
				HttpBenchmark.Measured results = httpBenchmark.run(redis, httpServers, httpEndpoints);
				if (charts != null) {
					Charts.writeHttp(charts, results.saturated())
						.forEach((chart) -> System.out.println("chart: " + chart));
				}
				System.out.println();
				System.out.println(HttpResults.markdown(results.saturated()));
				if (!results.paced().isEmpty()) {
					System.out.println(HttpPacedResults.markdown(results.paced()));
				}
			}
		}
		System.exit(0);
	}

}
