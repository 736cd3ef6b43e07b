package io.github.redkit.upgrade;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One instance of the fleet: the workload in a JVM of its own, on one version's class
 * path, writing its history to a file of its own.
 */
final class Instance {

	private static final Duration START = Duration.ofSeconds(90);

	private final String name;

	private final Process process;

	private final Path history;

	private final Path log;

	private Instance(String name, Process process, Path history, Path log) {
		this.name = name;
		this.process = process;
		this.history = history;
		this.log = log;
	}

	static Instance start(String name, Version version, Path directory, List<String> properties) throws IOException {
		Path history = directory.resolve(name + ".jsonl");
		Path log = directory.resolve(name + ".log");
		List<String> command = new ArrayList<>(
				List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:TieredStopAtLevel=1",
						"-XX:+UseSerialGC", "-Xmx256m", "-cp", version.classPath(), Workload.class.getName(),
						"--upgrade.instance=" + name, "--upgrade.version=" + version.name(),
						"--upgrade.history=" + history, "--spring.main.banner-mode=off", "--logging.level.root=WARN"));
		properties.forEach((property) -> command.add("--" + property));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		return new Instance(name, process, history, log);
	}

	/**
	 * Waits until the instance drives every capability.
	 */
	Instance awaitReady() throws IOException {
		long deadline = System.nanoTime() + START.toNanos();
		while (!Files.exists(this.history) || !Files.readString(this.history).contains("\"op\":\"ready\"")) {
			if (!this.process.isAlive() || System.nanoTime() > deadline) {
				throw new IllegalStateException(this.name + " did not start:\n" + tail());
			}
			LockSupport.parkNanos(50_000_000);
		}
		return this;
	}

	/**
	 * Stops the instance once its calls in progress ended.
	 * @param last whether it is the last of its region (it drains the queue and reads the
	 * final balances first)
	 */
	void stop(boolean last) throws Exception {
		try (OutputStream input = this.process.getOutputStream()) {
			input.write((last ? "last\n" : "stop\n").getBytes(StandardCharsets.UTF_8));
		}
	}

	void awaitStopped() throws Exception {
		if (!this.process.waitFor(60, TimeUnit.SECONDS)) {
			this.process.destroyForcibly();
			throw new IllegalStateException(this.name + " did not stop:\n" + tail());
		}
		if (this.process.exitValue() != 0) {
			throw new IllegalStateException(this.name + " exited with " + this.process.exitValue() + ":\n" + tail());
		}
	}

	void kill() {
		this.process.destroyForcibly();
	}

	Path history() {
		return this.history;
	}

	private String tail() throws IOException {
		List<String> lines = Files.exists(this.log) ? Files.readAllLines(this.log) : List.of();
		return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
	}

	/**
	 * A version of Redkit and its class path (the workload's classes first).
	 *
	 * @param name the version
	 * @param classPath the class path
	 * @param properties what its instances get besides the fleet's properties (none, but
	 * to see the checkers catch a version that reads nothing of the other's records)
	 */
	record Version(String name, String classPath, List<String> properties) {

	}

}
