package io.github.redkit.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.redkit.testsupport.CommandLog;
import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.RedisServer;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * What a request pays: the endpoints of {@link HttpApp} on each server, driven by
 * {@code wrk} in interleaved rounds (every endpoint once per round, in alternating
 * order). Each round first runs a saturating slice per endpoint ({@code connections}
 * connections, the server's requests/s, latency, Redis commands and CPU, the JVM's CPU
 * and allocation per request), then, after a collection and a pause, the runs below
 * saturation (a few connections, each pausing after every answer): {@code pacedSlices}
 * passes over the endpoints, the order alternating, each endpoint one short slice per
 * pass, so that the endpoints compared share the machine's moments and every slice of an
 * endpoint has a slice of the plain one next to it. Below saturation the application also
 * times itself ({@link InServerTimes}). Before the rounds every endpoint answers 20
 * sequential requests under {@code MONITOR} (round trips per request; a non-2xx answer
 * stops the benchmark).
 *
 * @param warmup each slice's unmeasured run before it (whole seconds, {@code 0} for none)
 * @param duration each slice's saturating run (whole seconds)
 * @param pacedDuration each slice below saturation ({@code 0} for none)
 * @param pacedSlices the slices below saturation per endpoint and round
 * @param rounds the rounds
 * @param connections the connections of the saturating run
 * @param pacedConnections the connections of the run below saturation
 * @param pacedDelayMillis each of their pauses after an answer
 */
record HttpBenchmark(Duration warmup, Duration duration, Duration pacedDuration, int pacedSlices, int rounds,
		int connections, int pacedConnections, int pacedDelayMillis) {

	private static final int WRK_THREADS = 2;

	private static final int ROUND_TRIP_SAMPLE = 20;

	// before the slices below saturation: what the saturated runs left (garbage, the
	// JIT's queue, the kernel's sockets) is not to land in them
	private static final Duration SETTLE = Duration.ofSeconds(2);

	// longer than any decision may take (its timeout is 500 ms)
	private static final Duration IDLE_WAIT = Duration.ofSeconds(5);

	HttpBenchmark {
		if (rounds < 1) {
			throw new IllegalArgumentException("--rounds must be at least 1");
		}
		if (duration.toSeconds() < 1) {
			throw new IllegalArgumentException("--duration must be at least 1s for http (wrk counts whole seconds)");
		}
		if (connections < 1 || pacedConnections < 1 || pacedDelayMillis < 0 || pacedSlices < 1) {
			throw new IllegalArgumentException("--connections, --paced-connections and --paced-slices must be "
					+ "positive, --paced-delay not negative");
		}
	}

	Measured run(RedisServer redis, List<HttpServerKind> servers, List<HttpEndpoint> endpoints) {
		HttpWrk wrk = HttpWrk.create();
		List<HttpResult> results = new ArrayList<>();
		List<HttpPacedResult> pacedResults = new ArrayList<>();
		for (HttpServerKind server : servers) {
			List<HttpEndpoint> rows = endpoints.stream().filter((endpoint) -> endpoint.runsOn(server)).toList();
			redis.flushAll();
			InServerTimes times = new InServerTimes();
			try (ConfigurableApplicationContext app = HttpApp.start(redis, server, times)) {
				String base = "http://127.0.0.1:" + HttpApp.port(app);
				System.out.printf("== HTTP on %s (%s, %s)%n", server.description(), HttpApp.serverName(app), base);
				HttpClient client = HttpClient.newHttpClient();
				for (HttpEndpoint endpoint : HttpEndpoint.values()) {
					if (endpoint.runsOn(server)) {
						send(client, base, endpoint, "check-" + UUID.randomUUID());
					}
				}
				Map<HttpEndpoint, Double> roundTrips = new LinkedHashMap<>();
				for (HttpEndpoint endpoint : rows) {
					roundTrips.put(endpoint, roundTrips(redis, base, endpoint));
				}
				// the first round is not to be the JIT's: every row runs once,
				// unmeasured, before it
				if (this.warmup.toSeconds() > 0) {
					for (HttpEndpoint endpoint : rows) {
						wrk.run(base + endpoint.path(), endpoint.method(), WRK_THREADS, this.connections, this.warmup,
								0, "jit-" + UUID.randomUUID());
					}
				}
				Map<HttpEndpoint, List<Slice>> slices = new LinkedHashMap<>();
				Map<HttpEndpoint, List<PacedSlice>> paced = new LinkedHashMap<>();
				for (int round = 0; round < this.rounds; round++) {
					for (int i = 0; i < rows.size(); i++) {
						HttpEndpoint endpoint = rows.get((round % 2 == 0) ? i : rows.size() - 1 - i);
						Slice slice = measure(wrk, redis, base, endpoint, round);
						System.out.printf(
								"  round %d %-55s %,9.0f req/s  p50 %6d us  p99 %7d us  %5.2f commands/req  JVM CPU %6.1f us/req  %,8.0f B/req%s%n",
								round + 1, endpoint.description(), slice.saturated().requestsPerSecond(),
								slice.saturated().p50Micros(), slice.saturated().p99Micros(),
								slice.commandsPerRequest(), slice.jvmCpuNanos() / 1000.0 / slice.requests(),
								(double) slice.allocatedBytes() / slice.requests(),
								(slice.failed() > 0) ? "  FAILED " + slice.failed() : "");
						System.out.printf("          %s%n", ThreadSplit.describe(slice.threads(), slice.requests()));
						slices.computeIfAbsent(endpoint, (e) -> new ArrayList<>()).add(slice);
					}
					if (this.pacedDuration.toSeconds() > 0) {
						settle();
						for (int pass = 0; pass < this.pacedSlices; pass++) {
							boolean forward = (round * this.pacedSlices + pass) % 2 == 0;
							for (int i = 0; i < rows.size(); i++) {
								HttpEndpoint endpoint = rows.get(forward ? i : rows.size() - 1 - i);
								PacedSlice slice = measurePaced(wrk, times, base, endpoint, round, pass);
								System.out.printf(
										"  round %d below saturation %d %-39s %,6.0f req/s  wrk p99 %6d us  in server p50 %5.0f p99 %6.0f us  advised p99 %6.0f us  Redis round trip p99 %5.0f us%s%n",
										round + 1, pass + 1, endpoint.description(), slice.run().requestsPerSecond(),
										slice.run().p99Micros(), HttpPacedResults.micros(slice.times().service(), 50),
										HttpPacedResults.micros(slice.times().service(), 99),
										HttpPacedResults.micros(slice.times().advised(), 99),
										HttpPacedResults.micros(slice.times().redisRoundTrip(), 99),
										(slice.failed() > 0) ? "  FAILED " + slice.failed() : "");
								paced.computeIfAbsent(endpoint, (e) -> new ArrayList<>()).add(slice);
							}
						}
					}
				}
				results.addAll(HttpResults.of(server, slices, roundTrips, this.rounds));
				if (!paced.isEmpty()) {
					pacedResults.addAll(HttpPacedResults.of(server, paced));
				}
			}
		}
		return new Measured(results, pacedResults);
	}

	private Slice measure(HttpWrk wrk, RedisServer redis, String base, HttpEndpoint endpoint, int round) {
		String url = base + endpoint.path();
		String run = "r" + round + "-" + UUID.randomUUID().toString().substring(0, 8);
		if (this.warmup.toSeconds() > 0) {
			wrk.run(url, endpoint.method(), WRK_THREADS, this.connections, this.warmup, 0, run + "w");
		}
		CommandStats commands = redis.commandStats();
		long redisCpu = RedisCpu.micros(redis);
		JvmCost jvm = JvmCost.now();
		ThreadSplit threads = ThreadSplit.now();
		HttpWrk.Run saturated = wrk.run(url, endpoint.method(), WRK_THREADS, this.connections, this.duration, 0,
				run + "s");
		JvmCost jvmAfter = JvmCost.now();
		Map<ThreadSplit.Kind, ThreadSplit.Counters> split = ThreadSplit.now().since(threads);
		long redisCpuUsed = RedisCpu.micros(redis) - redisCpu;
		long commandsRun = redis.commandStats().since(commands).total();
		return new Slice(saturated, commandsRun, redisCpuUsed, jvmAfter.cpuNanosSince(jvm),
				jvmAfter.allocatedSince(jvm), split, saturated.socketErrors() + saturated.statusErrors());
	}

	private PacedSlice measurePaced(HttpWrk wrk, InServerTimes times, String base, HttpEndpoint endpoint, int round,
			int pass) {
		String run = "r" + round + "p" + pass + "-" + UUID.randomUUID().toString().substring(0, 8);
		times.awaitIdle(IDLE_WAIT);
		times.clear();
		HttpWrk.Run paced = wrk.run(base + endpoint.path(), endpoint.method(), 1, this.pacedConnections,
				this.pacedDuration, this.pacedDelayMillis, run);
		return new PacedSlice(paced, times.take(endpoint), paced.socketErrors() + paced.statusErrors());
	}

	private static void settle() {
		System.gc();
		try {
			Thread.sleep(SETTLE.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	// sequential requests under MONITOR: the commands the application sent per request
	private static double roundTrips(RedisServer redis, String base, HttpEndpoint endpoint) {
		HttpClient client = HttpClient.newHttpClient();
		String run = "rt-" + UUID.randomUUID();
		CommandLog log = CommandLog.record(redis, () -> {
			for (int i = 0; i < ROUND_TRIP_SAMPLE; i++) {
				send(client, base, endpoint, run + "-" + i);
			}
		});
		return (double) log.roundTrips() / ROUND_TRIP_SAMPLE;
	}

	private static void send(HttpClient client, String base, HttpEndpoint endpoint, String seq) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + endpoint.path()))
			.header("X-Id", "1")
			.header("X-Seq", seq);
		if (endpoint.method().equals("POST")) {
			request.header("Idempotency-Key", seq)
				.header("Content-Type", "text/plain")
				.POST(HttpRequest.BodyPublishers.ofString("x"));
		}
		try {
			HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
			if (response.statusCode() / 100 != 2 || !response.body().equals("ok")) {
				throw new IllegalStateException(
						endpoint.path() + " answered " + response.statusCode() + ": " + response.body());
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException(endpoint.path() + " did not answer", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * What the benchmark measured.
	 *
	 * @param saturated a row per endpoint and server, at saturation
	 * @param paced a row per endpoint and server, below saturation (none when not run)
	 */
	record Measured(List<HttpResult> saturated, List<HttpPacedResult> paced) {

	}

	/**
	 * One endpoint's saturating slice in one round.
	 *
	 * @param saturated the saturating run
	 * @param commands commands Redis ran during the saturating run
	 * @param redisCpuMicros Redis CPU time during it
	 * @param jvmCpuNanos the JVM's CPU time during it
	 * @param allocatedBytes the bytes its threads allocated during it
	 * @param threads the CPU time and context switches of each kind of thread during it
	 * @param failed requests not answered with 2xx or 3xx
	 */
	record Slice(HttpWrk.Run saturated, long commands, long redisCpuMicros, long jvmCpuNanos, long allocatedBytes,
			Map<ThreadSplit.Kind, ThreadSplit.Counters> threads, long failed) {

		long requests() {
			return Math.max(1, this.saturated.requests());
		}

		double commandsPerRequest() {
			return (double) this.commands / requests();
		}

	}

	/**
	 * One endpoint's slice below saturation.
	 *
	 * @param run what {@code wrk} measured
	 * @param times what the application measured inside itself
	 * @param failed requests not answered with 2xx or 3xx
	 */
	record PacedSlice(HttpWrk.Run run, InServerTimes.Sample times, long failed) {

	}

}
