package io.github.redkit.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs Debian's {@code wrk} (a load generator we did not write) with the benchmark's
 * script ({@code http/bench.lua}), whose {@code done()} prints the totals and latency
 * percentiles parsed here.
 */
final class HttpWrk {

	private static final Pattern TOTALS = Pattern.compile("BENCH requests=(\\d+) duration_us=(\\d+) "
			+ "socket_errors=(\\d+) status_errors=(\\d+) p50_us=(\\d+) p99_us=(\\d+) p999_us=(\\d+) max_us=(\\d+)");

	private final Path script;

	private HttpWrk(Path script) {
		this.script = script;
	}

	/**
	 * Copies the script out of the jar.
	 * @return the load generator
	 */
	static HttpWrk create() {
		try (InputStream in = Objects.requireNonNull(HttpWrk.class.getResourceAsStream("/http/bench.lua"),
				"http/bench.lua")) {
			Path script = Files.createTempFile("redkit-bench", ".lua");
			Files.write(script, in.readAllBytes());
			script.toFile().deleteOnExit();
			return new HttpWrk(script);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * One run of {@code wrk}.
	 * @param url the endpoint's URL
	 * @param method {@code GET} or {@code POST}
	 * @param threads wrk's threads
	 * @param connections connections kept open (at least {@code threads})
	 * @param duration how long, in whole seconds (wrk's resolution)
	 * @param delayMillis each connection's pause after an answer, {@code 0} for none
	 * @param run a prefix that makes the run's {@code X-Seq} values unique
	 * @return what it measured
	 */
	Run run(String url, String method, int threads, int connections, Duration duration, int delayMillis, String run) {
		ProcessBuilder wrk = new ProcessBuilder("wrk", "-t" + threads, "-c" + Math.max(threads, connections),
				"-d" + Math.max(1, duration.toSeconds()) + "s", "--timeout", "10s", "-s", this.script.toString(), url);
		wrk.environment().put("BENCH_METHOD", method);
		wrk.environment().put("BENCH_DELAY_MS", Integer.toString(delayMillis));
		wrk.environment().put("BENCH_RUN", run);
		wrk.redirectErrorStream(true);
		try {
			Process process = wrk.start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(duration.toSeconds() + 30, TimeUnit.SECONDS) || process.exitValue() != 0) {
				throw new IllegalStateException("wrk failed: " + output);
			}
			Matcher totals = TOTALS.matcher(output);
			if (!totals.find()) {
				throw new IllegalStateException("wrk printed no totals: " + output);
			}
			return new Run(Long.parseLong(totals.group(1)), Long.parseLong(totals.group(2)),
					Long.parseLong(totals.group(3)), Long.parseLong(totals.group(4)), Long.parseLong(totals.group(5)),
					Long.parseLong(totals.group(6)));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("wrk could not be run (Debian: apt-get install wrk)", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * What one run measured.
	 *
	 * @param requests requests completed
	 * @param micros how long it ran
	 * @param socketErrors connect, read, write errors and timeouts
	 * @param statusErrors answers with neither 2xx nor 3xx
	 * @param p50Micros median latency
	 * @param p99Micros 99th percentile latency
	 */
	record Run(long requests, long micros, long socketErrors, long statusErrors, long p50Micros, long p99Micros) {

		double requestsPerSecond() {
			return this.requests / (this.micros / 1e6);
		}

	}

}
