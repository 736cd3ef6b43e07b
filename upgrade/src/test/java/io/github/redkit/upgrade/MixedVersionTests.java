package io.github.redkit.upgrade;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.upgrade.Instance.Version;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rolling upgrade from the previous release to this build and a rollback, against the
 * same Redis servers: old only, mixed, new only, mixed, old only. Each instance is a JVM
 * of its own on its version's class path, driving every capability at once; the merged
 * history is judged by a checker per promise.
 */
class MixedVersionTests {

	private static final List<String> ONE_REGION = List.of("eu");

	private static final List<String> TWO_REGIONS = List.of("eu", "us");

	@PrivateRedis(count = 2)
	private static List<RedisServer> servers;

	private static Version previous;

	private static Version current;

	@BeforeAll
	static void versions() throws Exception {
		String classes = System.getProperty("upgrade.classes");
		Path target = Path.of(classes).getParent();
		String version = System.getProperty("upgrade.previous");
		List<String> old = PreviousRelease.classPath(version, Path.of(System.getProperty("upgrade.root")),
				Path.of(System.getProperty("upgrade.repository")), target.resolve("upgrade"));
		previous = new Version(version, classes + File.pathSeparator + String.join(File.pathSeparator, old), List.of());
		String now = Files.readString(Path.of(System.getProperty("upgrade.classpath"))).trim();
		// -Dupgrade.current.properties=redkit.key-prefix=elsewhere plays a layout change
		// that
		// reads nothing of the previous layout: the checkers must then fail the run
		String broken = System.getProperty("upgrade.current.properties", "");
		current = new Version("current", classes + File.pathSeparator + now,
				broken.isEmpty() ? List.of() : List.of(broken.split(",")));
	}

	@Test
	void aFleetInOneRegionKeepsEveryPromiseThroughAnUpgradeAndARollback() throws Exception {
		RedisServer server = servers.get(0);
		List<Entry> history = upgrade("one-region", ONE_REGION, (slot) -> properties("one", server, List.of()));
		List<String> violations = new ArrayList<>();
		violations.addAll(RateLimitBound.check(history, ONE_REGION));
		violations.addAll(common(history, ONE_REGION));
		assertThat(violations).isEmpty();
	}

	@Test
	void aFleetInTwoRegionsKeepsEveryPromiseThroughAnUpgradeAndARollback() throws Exception {
		List<Entry> history = upgrade("two-regions", TWO_REGIONS, (slot) -> {
			RedisServer local = servers.get(slot);
			RedisServer peer = servers.get(1 - slot);
			return properties("two", local, List.of("upgrade.region=" + TWO_REGIONS.get(slot), "upgrade.regions=eu,us",
					"redkit.regions.local=" + TWO_REGIONS.get(slot), "redkit.regions.peers." + TWO_REGIONS.get(1 - slot)
							+ ".url=redis://" + RedisServer.HOST + ":" + peer.port(),
					"redkit.regions.replication.interval=20ms", "redkit.regions.timeout=10s"));
		});
		List<String> violations = new ArrayList<>();
		violations.addAll(RateLimitBound.check(history, TWO_REGIONS));
		violations.addAll(common(history, TWO_REGIONS));
		violations.addAll(RegionalTotals.check(history, TWO_REGIONS));
		assertThat(violations).isEmpty();
	}

	private static List<String> properties(String prefix, RedisServer server, List<String> more) {
		List<String> properties = new ArrayList<>(List.of("spring.data.redis.host=" + RedisServer.HOST,
				"spring.data.redis.port=" + server.port(), "redkit.key-prefix=" + prefix,
				"redkit.rate-limit.failure-mode=deny", "redkit.concurrency-limit.failure-mode=deny",
				"redkit.concurrency-limit.limits." + ConcurrencyLoad.LIMIT + ".limit=" + ConcurrencyHolds.LIMIT,
				"redkit.queue.queues." + QueueLoad.QUEUE + ".visibility-timeout=60s",
				// no fault is injected, but the machine may be busy: a slow answer breaks
				// no promise
				"redkit.rate-limit.timeout=10s", "redkit.concurrency-limit.timeout=10s", "redkit.budget.timeout=10s",
				"redkit.idempotency.timeout=10s"));
		properties.addAll(
				RateLimitBound.properties(more.stream().anyMatch((property) -> property.startsWith("redkit.regions"))));
		properties.addAll(more);
		return properties;
	}

	private static List<Entry> upgrade(String name, List<String> regions,
			java.util.function.IntFunction<List<String>> slotProperties) throws Exception {
		Path directory = Path.of(System.getProperty("upgrade.classes")).getParent().resolve("upgrade").resolve(name);
		clean(directory);
		Fleet fleet = new Fleet(directory, slotProperties, regions.size() == 1);
		try {
			fleet.start(previous);
			fleet.phase("old only", previous.name());
			fleet.replace(0, current);
			fleet.phase("mixed", previous.name(), current.name());
			fleet.replace(1, current);
			fleet.phase("new only", current.name());
			fleet.replace(0, previous);
			fleet.phase("mixed, rolling back", previous.name(), current.name());
			fleet.replace(1, previous);
			fleet.phase("old only again", previous.name());
			fleet.stop();
		}
		finally {
			fleet.kill();
		}
		List<Entry> history = fleet.history();
		assertThat(fleet.checkPhases(history)).isEmpty();
		assertThat(libraries(history)).isEmpty();
		return history;
	}

	/**
	 * The checks every fleet takes: no error, the locks, budgets, queues and steps.
	 */
	private static List<String> common(List<Entry> history, List<String> regions) {
		List<String> violations = new ArrayList<>();
		history.stream()
			.filter((entry) -> entry.outcome().equals("error"))
			.limit(10)
			.forEach((entry) -> violations.add("an error: " + entry));
		violations.addAll(LockHolds.check(history, regions));
		violations.addAll(BudgetUnits.check(history, regions));
		violations.addAll(QueueDeliveries.check(history, regions));
		violations.addAll(StepClaims.check(history, regions));
		violations.addAll(ConcurrencyHolds.check(history, regions));
		return violations;
	}

	/**
	 * Each instance ran the library of the version it was meant to.
	 */
	private static List<String> libraries(List<Entry> history) {
		return history.stream()
			.filter((entry) -> entry.is("instance", "started"))
			.filter((entry) -> entry.version().equals(previous.name()) != entry.text("library")
				.endsWith("redkit-spring-boot-" + previous.name() + ".jar"))
			.map((entry) -> "an instance of " + entry.version() + " ran " + entry.text("library"))
			.toList();
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
