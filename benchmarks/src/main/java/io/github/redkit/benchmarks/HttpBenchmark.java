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
import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * What a request pays: the endpoints of {@link HttpApp} on each server, driven by
 * {@code wrk} in interleaved rounds (every endpoint once per round, in alternating
 * order). Each slice is a saturating run ({@code connections} connections, the server's
 * requests/s, latency, Redis commands and CPU, the JVM's CPU and allocation per request)
 * and then a run below saturation (a few connections, each pausing after every answer)
 * whose p99 is the latency a request pays when the server is not queueing. Before the
 * rounds every endpoint answers 20 sequential requests under {@code MONITOR} (round trips
 * per request; a non-2xx answer stops the benchmark).
 *
 * @param warmup each slice's unmeasured run before it (whole seconds, {@code 0} for none)
 * @param duration each slice's saturating run (whole seconds)
 * @param pacedDuration each slice's run below saturation ({@code 0} for none)
 * @param rounds the rounds
 * @param connections the connections of the saturating run
 * @param pacedConnections the connections of the run below saturation
 * @param pacedDelayMillis each of their pauses after an answer
 */
record HttpBenchmark(Duration warmup, Duration duration, Duration pacedDuration, int rounds, int connections,
		int pacedConnections, int pacedDelayMillis) {

	private static final int WRK_THREADS = 2;

	private static final int ROUND_TRIP_SAMPLE = 20;

	HttpBenchmark {
		if (rounds < 1) {
			throw new IllegalArgumentException("--rounds must be at least 1");
		}
		if (duration.toSeconds() < 1) {
			throw new IllegalArgumentException("--duration must be at least 1s for http (wrk counts whole seconds)");
		}
		if (connections < 1 || pacedConnections < 1 || pacedDelayMillis < 0) {
			throw new IllegalArgumentException(
					"--connections and --paced-connections must be positive, --paced-delay not negative");
		}
	}

	List<HttpResult> run(RedisServer redis, List<HttpServerKind> servers, List<HttpEndpoint> endpoints) {
		HttpWrk wrk = HttpWrk.create();
		List<HttpResult> results = new ArrayList<>();
		for (HttpServerKind server : servers) {
			List<HttpEndpoint> rows = endpoints.stream().filter((endpoint) -> endpoint.runsOn(server)).toList();
			redis.flushAll();
			try (ConfigurableApplicationContext app = HttpApp.start(redis, server)) {
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
				for (int round = 0; round < this.rounds; round++) {
					for (int i = 0; i < rows.size(); i++) {
						HttpEndpoint endpoint = rows.get((round % 2 == 0) ? i : rows.size() - 1 - i);
						Slice slice = measure(wrk, redis, base, endpoint, round);
						System.out.printf(
								"  round %d %-55s %,9.0f req/s  p50 %6d us  p99 %7d us  paced p99 %6s us  %5.2f commands/req  JVM CPU %6.1f us/req  %,8.0f B/req%s%n",
								round + 1, endpoint.description(), slice.saturated().requestsPerSecond(),
								slice.saturated().p50Micros(), slice.saturated().p99Micros(),
								(slice.paced() != null) ? Long.toString(slice.paced().p99Micros()) : "–",
								slice.commandsPerRequest(), slice.jvmCpuNanos() / 1000.0 / slice.requests(),
								(double) slice.allocatedBytes() / slice.requests(),
								(slice.failed() > 0) ? "  FAILED " + slice.failed() : "");
						System.out.printf("          %s%n", ThreadSplit.describe(slice.threads(), slice.requests()));
						slices.computeIfAbsent(endpoint, (e) -> new ArrayList<>()).add(slice);
					}
				}
				results.addAll(HttpResults.of(server, slices, roundTrips, this.rounds));
			}
		}
		return results;
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
		HttpWrk.Run paced = null;
		if (this.pacedDuration.toSeconds() > 0) {
			paced = wrk.run(url, endpoint.method(), 1, this.pacedConnections, this.pacedDuration, this.pacedDelayMillis,
					run + "p");
		}
		long failed = saturated.socketErrors() + saturated.statusErrors()
				+ ((paced != null) ? paced.socketErrors() + paced.statusErrors() : 0);
		return new Slice(saturated, paced, commandsRun, redisCpuUsed, jvmAfter.cpuNanosSince(jvm),
				jvmAfter.allocatedSince(jvm), split, failed);
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
	 * One endpoint's measurement in one round.
	 *
	 * @param saturated the saturating run
	 * @param paced the run below saturation, or {@code null}
	 * @param commands commands Redis ran during the saturating run
	 * @param redisCpuMicros Redis CPU time during it
	 * @param jvmCpuNanos the JVM's CPU time during it
	 * @param allocatedBytes the bytes its threads allocated during it
	 * @param threads the CPU time and context switches of each kind of thread during it
	 * @param failed requests not answered with 2xx or 3xx, in either run
	 */
	record Slice(HttpWrk.Run saturated, HttpWrk.@Nullable Run paced, long commands, long redisCpuMicros,
			long jvmCpuNanos, long allocatedBytes, Map<ThreadSplit.Kind, ThreadSplit.Counters> threads, long failed) {

		long requests() {
			return Math.max(1, this.saturated.requests());
		}

		double commandsPerRequest() {
			return (double) this.commands / requests();
		}

	}

}
