package io.github.redkit.upgrade;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The JVM of one version: it runs that version's instances of the fleet, each a Spring
 * Boot application of its own (its own connections, beans and threads), started and
 * stopped on the test's commands. A replacement is started in the other version's JVM
 * before the instance it replaces stops, so both versions run at once.
 */
final class Host {

	/**
	 * A short-lived JVM: C1 only and the serial collector, as the build's test JVMs (most
	 * of its CPU is the start-up's), and small thread stacks (each instance runs about
	 * twenty threads).
	 */
	static final List<String> JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m",
			"-Xss512k", "-XX:-UsePerfData");

	private final Version version;

	private final Process process;

	private final BufferedWriter commands;

	private final Path log;

	private Host(Version version, Process process, Path log) {
		this.version = version;
		this.process = process;
		this.log = log;
		this.commands = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
	}

	static Host start(Version version, Path directory) throws IOException {
		Path log = directory.resolve(version.name() + ".log");
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(JVM_OPTIONS);
		command.addAll(List.of("-cp", version.classPath(), Workload.class.getName()));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		return new Host(version, process, log);
	}

	Version version() {
		return this.version;
	}

	/**
	 * Starts an instance in this JVM (the instance writes {@code ready} to its history
	 * once it drives every capability).
	 * @param name the instance
	 * @param history its history
	 * @param properties its properties, {@code name=value}
	 */
	void start(String name, Path history, List<String> properties) throws IOException {
		List<String> words = new ArrayList<>(
				List.of("start", "--upgrade.instance=" + name, "--upgrade.version=" + this.version.name(),
						"--upgrade.history=" + history, "--spring.main.banner-mode=off", "--logging.level.root=WARN"));
		properties.forEach((property) -> words.add("--" + property));
		words.forEach((word) -> {
			if (word.contains(" ")) {
				throw new IllegalArgumentException("a property with a space: " + word);
			}
		});
		send(String.join(" ", words));
	}

	/**
	 * Stops an instance once its calls in progress ended.
	 * @param name the instance
	 * @param last whether it is the last of its region (it drains the queue and reads the
	 * final balances first)
	 */
	void stop(String name, boolean last) throws IOException {
		send((last ? "last " : "stop ") + name);
	}

	private void send(String command) throws IOException {
		if (!this.process.isAlive()) {
			throw new IllegalStateException("the JVM of " + this.version.name() + " exited:\n" + tail());
		}
		this.commands.write(command);
		this.commands.newLine();
		this.commands.flush();
	}

	boolean isAlive() {
		return this.process.isAlive();
	}

	/**
	 * Ends the JVM once what still runs in it stopped.
	 */
	void close() throws Exception {
		if (this.process.isAlive()) {
			this.commands.close();
		}
		if (!this.process.waitFor(60, TimeUnit.SECONDS)) {
			this.process.destroyForcibly();
			throw new IllegalStateException("the JVM of " + this.version.name() + " did not stop:\n" + tail());
		}
		if (this.process.exitValue() != 0) {
			throw new IllegalStateException(
					"the JVM of " + this.version.name() + " exited with " + this.process.exitValue() + ":\n" + tail());
		}
	}

	void kill() {
		this.process.destroyForcibly();
	}

	String tail() throws IOException {
		List<String> lines = Files.exists(this.log) ? Files.readAllLines(this.log) : List.of();
		return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
	}

}
