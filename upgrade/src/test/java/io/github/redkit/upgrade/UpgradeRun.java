package io.github.redkit.upgrade;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.stream.Stream;

import io.github.redkit.testsupport.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rolling upgrade from the previous release to this build and a rollback, against the
 * same Redis servers: old only, mixed, new only, mixed, old only; and the checks every
 * fleet takes.
 */
final class UpgradeRun {

	private final Version previous;

	private final Version current;

	private UpgradeRun(Version previous, Version current) {
		this.previous = previous;
		this.current = current;
	}

	/**
	 * The previous release (built once into the local repository when it is not there)
	 * and this build, as the module's surefire configuration names them.
	 */
	static UpgradeRun versions() throws Exception {
		String classes = System.getProperty("upgrade.classes");
		Path target = Path.of(classes).getParent();
		String version = System.getProperty("upgrade.previous");
		List<String> old = PreviousRelease.classPath(version, Path.of(System.getProperty("upgrade.root")),
				Path.of(System.getProperty("upgrade.repository")), target.resolve("upgrade"));
		Version previous = new Version(version, classes + File.pathSeparator + String.join(File.pathSeparator, old),
				List.of());
		String now = Files.readString(Path.of(System.getProperty("upgrade.classpath"))).trim();
		// -Dupgrade.current.properties=redkit.key-prefix=elsewhere plays a layout change
		// that reads nothing of the previous layout: the checkers must then fail the run
		String broken = System.getProperty("upgrade.current.properties", "");
		Version current = new Version("current", classes + File.pathSeparator + now,
				broken.isEmpty() ? List.of() : List.of(broken.split(",")));
		return new UpgradeRun(previous, current);
	}

	static List<String> properties(String prefix, RedisServer server, List<String> more) {
		List<String> properties = new ArrayList<>(List.of("spring.data.redis.host=" + RedisServer.HOST,
				"spring.data.redis.port=" + server.port(), "redkit.key-prefix=" + prefix,
				"redkit.rate-limit.failure-mode=deny", "redkit.concurrency-limit.failure-mode=deny",
				"redkit.concurrency-limit.limits." + ConcurrencyLoad.LIMIT + ".limit=" + ConcurrencyHolds.LIMIT,
				"redkit.queue.queues." + QueueLoad.QUEUE + ".visibility-timeout=60s",
				"redkit.queue.queues." + DelayLoad.FIRST_WINS + ".collapse=first-wins",
				"redkit.queue.queues." + DelayLoad.FIRST_WINS + ".visibility-timeout=60s",
				"redkit.queue.queues." + DelayLoad.LAST_WINS + ".collapse=last-wins",
				"redkit.queue.queues." + DelayLoad.LAST_WINS + ".visibility-timeout=60s",
				"redkit.queue.queues." + DeadLetterLoad.QUEUE + ".visibility-timeout=60s",
				"redkit.queue.queues." + DeadLetterLoad.QUEUE + ".max-attempts=1",
				// an entry outlives the run: a value loaded twice is a second flight
				"redkit.cache.caches." + CachedValues.CACHE + ".ttl=10m",
				// no fault is injected, but the machine may be busy: a slow answer breaks
				// no promise
				"redkit.rate-limit.timeout=10s", "redkit.concurrency-limit.timeout=10s", "redkit.budget.timeout=10s",
				"redkit.idempotency.timeout=10s"));
		HeldLoad.properties()
			.forEach((name, value) -> properties
				.add("redkit.queue.queues." + HeldLoad.QUEUE + "." + name + "=" + value));
		properties.addAll(
				RateLimitBound.properties(more.stream().anyMatch((property) -> property.startsWith("redkit.regions"))));
		properties.addAll(more);
		return properties;
	}

	/**
	 * Takes a fleet through the upgrade and the rollback, and checks that each phase ran
	 * the versions it meant and each instance the library of its version.
	 * @param name the fleet's name (its directory under {@code target/upgrade})
	 * @param sharedRegion whether both slots are in one region
	 * @param slotProperties each slot's properties
	 * @return the merged history
	 */
	List<Entry> upgrade(String name, boolean sharedRegion, IntFunction<List<String>> slotProperties) throws Exception {
		Path directory = Path.of(System.getProperty("upgrade.classes")).getParent().resolve("upgrade").resolve(name);
		clean(directory);
		List<Entry> history;
		try (Fleet fleet = new Fleet(directory, slotProperties, sharedRegion)) {
			fleet.start(this.previous);
			fleet.phase("old only", this.previous.name());
			fleet.replace(0, this.current);
			fleet.phase("mixed", this.previous.name(), this.current.name());
			fleet.replace(1, this.current);
			fleet.phase("new only", this.current.name());
			fleet.replace(0, this.previous);
			fleet.phase("mixed, rolling back", this.previous.name(), this.current.name());
			fleet.replace(1, this.previous);
			fleet.phase("old only again", this.previous.name());
			fleet.stop();
			history = fleet.history();
			assertThat(fleet.checkPhases(history)).isEmpty();
		}
		assertThat(libraries(history)).isEmpty();
		record(name, history);
		return history;
	}

	/**
	 * The checks every fleet takes: no error, the locks (held, listed and forced),
	 * budgets, queues, steps and concurrency limits.
	 */
	static List<String> common(List<Entry> history, List<String> regions) {
		List<String> violations = new ArrayList<>();
		history.stream()
			.filter((entry) -> entry.outcome().equals("error"))
			.limit(10)
			.forEach((entry) -> violations.add("an error: " + entry));
		violations.addAll(LockHolds.check(history, regions));
		violations.addAll(LockForcing.check(history, regions));
		violations.addAll(CacheFlights.check(history, regions));
		violations.addAll(BudgetUnits.check(history, regions));
		violations.addAll(BudgetCycles.check(history, regions));
		violations.addAll(QueueDeliveries.check(history, regions));
		violations.addAll(DelayedDeliveries.check(history, regions));
		violations.addAll(DeadLetters.check(history, regions));
		violations.addAll(HeldDeliveries.check(history, regions));
		violations.addAll(StepClaims.check(history, regions));
		violations.addAll(StepAbandons.check(history, regions));
		violations.addAll(ConcurrencyHolds.check(history, regions));
		return violations;
	}

	/**
	 * Each instance ran the library of the version it was meant to.
	 */
	private List<String> libraries(List<Entry> history) {
		return history.stream()
			.filter((entry) -> entry.is("instance", "started"))
			.filter((entry) -> entry.version().equals(this.previous.name()) != entry.text("library")
				.endsWith("redkit-spring-boot-" + this.previous.name() + ".jar"))
			.map((entry) -> "an instance of " + entry.version() + " ran " + entry.text("library"))
			.toList();
	}

	/**
	 * Keeps the history as a recording when {@code -Dupgrade.record=<directory>} says
	 * where: how the recording of a broken upgrade that {@code CheckersTests} judges is
	 * made.
	 */
	private static void record(String name, List<Entry> history) throws IOException {
		String directory = System.getProperty("upgrade.record", "");
		if (!directory.isBlank()) {
			Entry.write(history, Path.of(directory).resolve(name + ".jsonl.gz"));
		}
	}

	private static void clean(Path directory) throws IOException {
		if (Files.exists(directory)) {
			try (Stream<Path> files = Files.list(directory)) {
				for (Path file : files.toList()) {
					Files.delete(file);
				}
			}
		}
		Files.createDirectories(directory);
	}

}
