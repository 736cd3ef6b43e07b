package io.github.redkit.upgrade;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * One instance of the fleet, in its version's JVM, writing its history to a file of its
 * own; what the test knows of it is what that history says.
 */
final class Instance {

	private static final Duration START = Duration.ofSeconds(90);

	private static final Duration STOP = Duration.ofSeconds(60);

	private final String name;

	private final Host host;

	private final HistoryFile history;

	private final Set<String> events = new HashSet<>();

	private Instance(String name, Host host, HistoryFile history) {
		this.name = name;
		this.host = host;
		this.history = history;
	}

	static Instance start(String name, Host host, Path directory, List<String> properties) throws IOException {
		Path history = directory.resolve(name + ".jsonl");
		host.start(name, history, properties);
		return new Instance(name, host, new HistoryFile(history));
	}

	String name() {
		return this.name;
	}

	Path history() {
		return this.history.path();
	}

	/**
	 * Waits until the instance drives every capability.
	 */
	Instance awaitReady() throws IOException {
		await("ready", START);
		return this;
	}

	void stop(boolean last) throws IOException {
		this.host.stop(this.name, last);
	}

	/**
	 * Waits until the instance stopped its load and closed its application.
	 */
	void awaitStopped() throws IOException {
		await("closed", STOP);
	}

	/**
	 * How many lines the instance wrote so far.
	 */
	long lines() throws IOException {
		poll();
		return this.history.lines();
	}

	private void await(String event, Duration timeout) throws IOException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!poll().contains(event)) {
			if (this.events.contains("failed")) {
				throw new IllegalStateException(this.name + " failed:\n" + this.host.tail());
			}
			if (!this.host.isAlive() || System.nanoTime() > deadline) {
				throw new IllegalStateException(this.name + " did not reach '" + event + "':\n" + this.host.tail());
			}
			LockSupport.parkNanos(20_000_000);
		}
	}

	private Set<String> poll() throws IOException {
		for (String line : this.history.poll()) {
			if (line.contains("\"cap\":\"instance\"")) {
				this.events.add(Entry.parse(line).op());
			}
		}
		return this.events;
	}

}
