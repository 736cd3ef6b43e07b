package io.github.redkit.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One {@code redis-server} process on the loopback interface, without persistence.
 */
final class RedisProcess {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(15);

	private final Path binary;

	private final Path directory;

	private final int port;

	private final List<String> arguments;

	private final Map<String, String> environment;

	private @Nullable Process process;

	private @Nullable Process watchdog;

	RedisProcess(Path binary, Path directory, int port, List<String> extraArgs) {
		this(serverArguments(directory, port, extraArgs), binary, directory, port, Map.of());
	}

	RedisProcess(Path binary, Path directory, int port, List<String> extraArgs, Map<String, String> environment) {
		this(serverArguments(directory, port, extraArgs), binary, directory, port, environment);
	}

	private RedisProcess(List<String> arguments, Path binary, Path directory, int port,
			Map<String, String> environment) {
		this.binary = binary;
		this.directory = directory;
		this.port = port;
		this.arguments = arguments;
		this.environment = Map.copyOf(environment);
	}

	/**
	 * A Sentinel: {@code redis-server <config> --sentinel}. The configuration file must
	 * be writable, Sentinel records what it learns in it.
	 * @param binary the redis-server executable
	 * @param directory where the log goes
	 * @param port the port the configuration names
	 * @param config the configuration file
	 * @return the process, not started
	 */
	static RedisProcess sentinel(Path binary, Path directory, int port, Path config) {
		return new RedisProcess(List.of(config.toString(), "--sentinel"), binary, directory, port, Map.of());
	}

	private static List<String> serverArguments(Path directory, int port, List<String> extraArgs) {
		List<String> arguments = new ArrayList<>(List.of("--port", String.valueOf(port), "--bind", RedisServer.HOST,
				"--protected-mode", "no", "--save", "", "--appendonly", "no", "--dir", directory.toString()));
		arguments.addAll(extraArgs);
		return List.copyOf(arguments);
	}

	int port() {
		return this.port;
	}

	synchronized void start() {
		List<String> command = new ArrayList<>(List.of(this.binary.toString()));
		command.addAll(this.arguments);
		Process process;
		try {
			ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect
					.appendTo(this.directory.resolve("redis-" + this.port + ".log").toFile()));
			builder.environment().putAll(this.environment);
			process = builder.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot start " + this.binary, ex);
		}
		this.process = process;
		this.watchdog = watchdog(process.pid());
		try {
			awaitPong(process);
		}
		catch (RuntimeException ex) {
			if (!process.isAlive()) {
				disarmWatchdog();
			}
			throw ex;
		}
	}

	/**
	 * A shell that kills the server once this JVM is gone, even killed with
	 * {@code SIGKILL} (when no shutdown hook runs): it reads its standard input, which
	 * only this JVM holds open, and the kernel closes it when the JVM dies. Without a
	 * {@code sh} (Windows) the server outlives a killed JVM.
	 */
	private static @Nullable Process watchdog(long pid) {
		try {
			return new ProcessBuilder("sh", "-c", "while read -r line; do :; done; kill -9 " + pid + " 2>/dev/null")
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.redirectError(ProcessBuilder.Redirect.DISCARD)
				.start();
		}
		catch (IOException ex) {
			return null;
		}
	}

	/**
	 * Stops the watchdog before the server is stopped on purpose, so that it never kills
	 * a process that took the server's pid since.
	 */
	private void disarmWatchdog() {
		Process watchdog = this.watchdog;
		this.watchdog = null;
		if (watchdog == null) {
			return;
		}
		try {
			watchdog.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
			watchdog.getOutputStream().close();
		}
		catch (IOException ex) {
			// already gone
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void awaitPong(Process process) {
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		RuntimeException last = null;
		while (System.nanoTime() < deadline) {
			if (!process.isAlive()) {
				throw new IllegalStateException("redis-server exited with " + process.exitValue() + "; see "
						+ this.directory.resolve("redis-" + this.port + ".log"));
			}
			try (RespClient client = RespClient.connect(RedisServer.HOST, this.port, Duration.ofSeconds(1))) {
				if ("PONG".equals(client.call("PING"))) {
					return;
				}
			}
			catch (RuntimeException ex) {
				last = ex;
			}
			sleep(20);
		}
		throw new IllegalStateException("redis-server on port " + this.port + " did not answer within " + START_TIMEOUT,
				last);
	}

	synchronized void stop() {
		if (this.process == null) {
			return;
		}
		disarmWatchdog();
		signal("CONT");
		try (RespClient client = RespClient.connect(RedisServer.HOST, this.port, Duration.ofSeconds(1))) {
			client.call("SHUTDOWN", "NOSAVE");
		}
		catch (RuntimeException ex) {
			// SHUTDOWN closes the connection without a reply; a dead server needs no
			// shutdown
		}
		try {
			if (!this.process.waitFor(5, TimeUnit.SECONDS)) {
				this.process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.process = null;
	}

	/**
	 * Kills the process at once (SIGKILL): no shutdown, no last replication.
	 */
	synchronized void kill() {
		if (this.process == null) {
			return;
		}
		disarmWatchdog();
		try {
			signal("CONT");
			this.process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.process = null;
	}

	synchronized void signal(String signal) {
		if (this.process == null || !this.process.isAlive()) {
			return;
		}
		try {
			new ProcessBuilder("kill", "-" + signal, String.valueOf(this.process.pid())).start()
				.waitFor(5, TimeUnit.SECONDS);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
