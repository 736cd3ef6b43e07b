package io.github.redkit.upgrade;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

import io.github.redkit.upgrade.Instance.Version;

/**
 * Two slots of instances (one per region, or two in one region) taken through a rolling
 * upgrade and a rollback: a replacement starts and drives every capability before the
 * instance it replaces stops, so each step of the upgrade runs both versions at once.
 */
final class Fleet {

	/**
	 * How many calls each running instance writes in one phase (a few periods' worth).
	 */
	private static final int CALLS_PER_PHASE = 600;

	private static final Duration PHASE = Duration.ofSeconds(60);

	private final Path directory;

	private final IntFunction<List<String>> slotProperties;

	private final boolean sharedRegion;

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
	 * Starts one instance of the version in each slot, all at once.
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
		Instance instance = Instance.start(name, version, this.directory, all);
		this.all.add(instance);
		return instance;
	}

	/**
	 * Lets the running instances work until each wrote a few periods' worth of calls, and
	 * remembers which versions ran then.
	 * @param name the phase
	 * @param versions the versions that must have answered calls in it
	 */
	void phase(String name, String... versions) throws IOException {
		long from = HistoryLog.micros();
		List<Long> sizes = new ArrayList<>();
		for (Instance instance : this.running) {
			sizes.add(lines(instance.history()));
		}
		long deadline = System.nanoTime() + PHASE.toNanos();
		for (int i = 0; i < this.running.size(); i++) {
			while (lines(this.running.get(i).history()) < sizes.get(i) + CALLS_PER_PHASE) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException(name + ": the instances barely ran");
				}
				LockSupport.parkNanos(50_000_000);
			}
		}
		this.phases.add(new Phase(name, from, HistoryLog.micros(), Set.of(versions)));
	}

	private static long lines(Path file) throws IOException {
		try (java.util.stream.Stream<String> lines = Files.lines(file)) {
			return lines.count();
		}
	}

	/**
	 * Stops every instance; the last of each region drains its queue and reads the final
	 * balances once every other instance of its region stopped.
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
	}

	void kill() {
		this.all.forEach(Instance::kill);
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
