package io.github.redkit.sample;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Debian's {@code wrk}, a load generator we did not write, run against the sample with
 * one of the scripts in {@code sample-app/wrk}, each of which prints its totals as
 * {@code requests: N, non-2xx/3xx: M}.
 */
final class Wrk implements AutoCloseable {

	private static final Pattern TOTALS = Pattern.compile("requests: (\\d+), non-2xx/3xx: (\\d+)");

	private final Process process;

	private Wrk(Process process) {
		this.process = process;
	}

	/**
	 * Skips the test where {@code wrk} is not installed ({@code .ci/run} installs it).
	 */
	static void assumeInstalled() {
		String path = System.getenv("PATH");
		boolean found = false;
		if (path != null) {
			for (String directory : path.split(File.pathSeparator)) {
				found |= new File(directory, "wrk").canExecute();
			}
		}
		Assumptions.assumeTrue(found, "wrk is not installed (Debian: apt-get install wrk; .ci/run installs it)");
	}

	/**
	 * Starts {@code wrk} with two threads.
	 * @param script the script in {@code sample-app/wrk}
	 * @param url what to call
	 * @param connections connections kept open
	 * @param duration how long to call
	 * @param environment what the script reads from the environment
	 * @return the running load generator
	 */
	static Wrk start(String script, String url, int connections, Duration duration, Map<String, String> environment)
			throws Exception {
		ProcessBuilder wrk = new ProcessBuilder("wrk", "-t2", "-c" + connections, "-d" + duration.toSeconds() + "s",
				"-s", "wrk/" + script, url);
		wrk.environment().putAll(environment);
		wrk.redirectErrorStream(true);
		return new Wrk(wrk.start());
	}

	/**
	 * Waits for the run to end.
	 * @return its totals
	 */
	Totals finish() throws Exception {
		String output = new String(this.process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(this.process.waitFor(60, TimeUnit.SECONDS)).isTrue();
		assertThat(this.process.exitValue()).as(output).isZero();
		Matcher totals = TOTALS.matcher(output);
		assertThat(totals.find()).as(output).isTrue();
		return new Totals(output, Long.parseLong(totals.group(1)), Long.parseLong(totals.group(2)));
	}

	/**
	 * Ends the run before its duration: {@code wrk} stops on {@code SIGINT} and prints
	 * its totals as at its deadline. A test whose phases are over stops its load here
	 * rather than keep both cores busy until the duration it had to allow for a slow
	 * machine.
	 * @return its totals
	 */
	Totals stop() throws Exception {
		Process kill = new ProcessBuilder("kill", "-INT", Long.toString(this.process.pid())).start();
		assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
		return finish();
	}

	/**
	 * Ends a run the test no longer reads (it failed before its end): a load left running
	 * would take the cores from the tests after it.
	 */
	@Override
	public void close() {
		this.process.destroyForcibly();
	}

	/**
	 * What one run of {@code wrk} did.
	 *
	 * @param output what it printed
	 * @param requests the requests it completed
	 * @param refused those answered with neither 2xx nor 3xx
	 */
	record Totals(String output, long requests, long refused) {

		long succeeded() {
			return this.requests - this.refused;
		}

	}

}
