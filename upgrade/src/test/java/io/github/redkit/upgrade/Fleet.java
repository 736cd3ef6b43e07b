package io.github.redkit.upgrade;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

/**
 * Two slots of instances (one per region, or two in one region) taken through a rolling
 * upgrade and a rollback: a replacement starts and drives every capability before the
 * instance it replaces stops, so each step of the upgrade runs both versions at once.
 * Each version's instances run in one JVM of that version.
 */
final class Fleet implements AutoCloseable {

	/**
	 * The least a phase lasts: three periods of the rate limits, so that intervals of a
	 * period lie wholly inside it.
	 */
	private static final Duration PHASE = Duration.ofMillis(3 * RateLimitBound.PERIOD_MILLIS);

	/**
	 * And the least each running instance writes in it (a busy machine makes a phase
	 * longer, not emptier).
	 */
	private static final int CALLS_PER_PHASE = 300;

	private static final Duration PHASE_TIMEOUT = Duration.ofSeconds(60);

	private final Path directory;

	private final IntFunction<List<String>> slotProperties;

	private final boolean sharedRegion;

	private final Map<String, Host> hosts = new LinkedHashMap<>();

	private final List<Instance> running = new ArrayList<>();

	private final List<Instance> all = new ArrayList<>();

	private final List<Phase> phases = new ArrayList<>();

	private int started;

	Fleet(Path directory, IntFunction<List<String>> slotProperties, boolean sharedRegion) {
		this.directory = directory;
		this.slotProperties = slotProperties;
		this.sharedRegion = sharedRegion;
	}

	/**
	 * Starts one instance of the version in each slot.
	 */
	void start(Version version) throws Exception {
		for (int slot = 0; slot < 2; slot++) {
			List<String> properties = new ArrayList<>(this.slotProperties.apply(slot));
			if (slot == 0) {
				properties.add("upgrade.setup=true");
			}
			this.running.add(launch(version, slot, properties));
		}
		for (Instance instance : this.running) {
			instance.awaitReady();
		}
	}

	/**
	 * Replaces the instance of one slot with one of the version: the new one first.
	 */
	void replace(int slot, Version version) throws Exception {
		Instance replacement = launch(version, slot, this.slotProperties.apply(slot)).awaitReady();
		Instance replaced = this.running.set(slot, replacement);
		replaced.stop(false);
		replaced.awaitStopped();
	}

	private Instance launch(Version version, int slot, List<String> properties) throws IOException {
		List<String> all = new ArrayList<>(properties);
		all.addAll(version.properties());
		String name = (char) ('a' + slot) + "" + (++this.started) + "-" + version.name();
		Host host = this.hosts.get(version.name());
		if (host == null) {
			host = Host.start(version, this.directory);
			this.hosts.put(version.name(), host);
		}
		Instance instance = Instance.start(name, host, this.directory, all);
		this.all.add(instance);
		return instance;
	}

	/**
	 * Lets the running instances work for a few periods, each for a few hundred calls,
	 * and remembers which versions ran then.
	 * @param name the phase
	 * @param versions the versions that must have answered calls in it
	 */
	void phase(String name, String... versions) throws IOException {
		long from = HistoryLog.micros();
		long end = System.nanoTime() + PHASE.toNanos();
		long deadline = System.nanoTime() + PHASE_TIMEOUT.toNanos();
		List<Long> sizes = new ArrayList<>();
		for (Instance instance : this.running) {
			sizes.add(instance.lines());
		}
		for (int i = 0; i < this.running.size(); i++) {
			while (this.running.get(i).lines() < sizes.get(i) + CALLS_PER_PHASE || System.nanoTime() < end) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException(name + ": the instances barely ran");
				}
				LockSupport.parkNanos(20_000_000);
			}
		}
		this.phases.add(new Phase(name, from, HistoryLog.micros(), Set.of(versions)));
	}

	/**
	 * Stops every instance; the last of each region drains its queue and reads the final
	 * balances once every other instance of its region stopped. Then the JVMs end.
	 */
	void stop() throws Exception {
		if (this.sharedRegion) {
			this.running.get(1).stop(false);
			this.running.get(1).awaitStopped();
			this.running.remove(1);
		}
		for (Instance instance : this.running) {
			instance.stop(true);
		}
		for (Instance instance : this.running) {
			instance.awaitStopped();
		}
		this.running.clear();
		for (Host host : this.hosts.values()) {
			host.close();
		}
	}

	@Override
	public void close() {
		this.hosts.values().forEach(Host::kill);
	}

	List<Entry> history() throws IOException {
		return Entry.read(this.all.stream().map(Instance::history).toList());
	}

	/**
	 * Whether each phase ran the versions it should have: calls answered to each, and to
	 * no other.
	 */
	List<String> checkPhases(List<Entry> history) {
		List<String> violations = new ArrayList<>();
		for (Phase phase : this.phases) {
			Set<String> answered = new LinkedHashSet<>();
			history.stream()
				.filter((entry) -> entry.ok() && entry.start() >= phase.from() && entry.end() <= phase.to()
						&& !entry.capability().equals("instance"))
				.forEach((entry) -> answered.add(entry.version()));
			if (!answered.equals(phase.versions())) {
				violations.add(phase.name() + ": calls answered to " + answered + ", expected " + phase.versions());
			}
		}
		return violations;
	}

	private record Phase(String name, long from, long to, Set<String> versions) {

	}

}
