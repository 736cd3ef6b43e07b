package io.github.redkit.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Holds {@link TopologyIntent#rule()} over the compiled test classes of the module
 * running it, from this module's jar in every module whose tests depend on it, as
 * {@link HandStartedServersTests} does for its rule; and that {@code docs/testing.md}'s
 * table "Suites per topology" lists each suite of the module with the intent its compiled
 * class declares (that the table's marks are its intents' and that each row names a suite
 * of some module is the sample's {@code TopologySuitesTests}' to hold). Tagged
 * {@code test-code-rules}: {@code autoconfigure/tests-apart} runs the classes of its
 * executions by tag.
 */
@Tag("test-code-rules")
class TopologyIntentTests {

	@Test
	void noTestCodeRunsAClassOverTheTopologiesWithoutAnIntent() {
		TopologyIntent.rule().check(HandStartedServers.testClassesOfThisModule());
	}

	@Test
	void everySuiteHereIsListedWithTheIntentItDeclares() {
		Map<String, Exercises> declared = TopologyIntent.declaredSuites(HandStartedServers.testClassesOfThisModule());
		Map<String, Exercises> listedHere = new TreeMap<>(TopologyIntent.listedSuites(testingGuide()));
		listedHere.keySet()
			.retainAll(HandStartedServers.testClassesOfThisModule()
				.stream()
				.filter((javaClass) -> javaClass.getEnclosingClass().isEmpty())
				.map((javaClass) -> javaClass.getSimpleName())
				.toList());
		assertEquals(declared, listedHere,
				"the suites of this module (@RedisTopologies) against their rows in docs/testing.md's "
						+ "\"Suites per topology\"");
	}

	private static List<String> testingGuide() {
		for (Path folder = HandStartedServers.thisModule(); folder != null; folder = folder.getParent()) {
			Path guide = folder.resolve(Path.of("docs", "testing.md"));
			if (Files.isRegularFile(guide)) {
				try {
					return Files.readAllLines(guide);
				}
				catch (IOException ex) {
					throw new UncheckedIOException(ex);
				}
			}
		}
		throw new IllegalStateException("No docs/testing.md above " + HandStartedServers.thisModule());
	}

}
