package io.github.redkit.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rule of {@code docs/testing.md} for a Redis of a test's own: no test code starts
 * (and so stops) one by hand with a copied {@code @BeforeAll} and {@code @AfterAll}; a
 * static {@code @PrivateRedis} field or a test's {@code @PrivateRedis} parameter has
 * {@code redkit-test-support} do it. The test code of every module is read, and a call of
 * a starting method of {@code RedisServers}, {@code RedisNode} or
 * {@code SentinelRedisServer} fails this, naming the file and line, unless the file is
 * one of the few that start a server on purpose, each listed with why.
 * {@code redkit-test-support}'s own tests are left out: they test those methods.
 */
class PrivateServersTests {

	private static final Pattern START = Pattern
		.compile("\\b(RedisServers|RedisNode|SentinelRedisServer)\\.start\\w*\\(");

	private static final String TEST_SUPPORT = "test-support";

	/** The test code that starts servers itself, and why. */
	private static final Map<String, String> ON_PURPOSE = Map.of(
			"sample-app/src/test/java/io/github/redkit/sample/EmbeddedRedisTests.java",
			"the configured Redis comes up on a given port mid-test, while the application waits for it",
			"faults/src/test/java/io/github/redkit/faults/FaultRun.java",
			"the fault harness starts the nodes of each run (a seed, a scenario) as the run asks for them");

	@Test
	void noTestCodeStartsARedisOfItsOwnByHand() {
		List<String> byHand = new ArrayList<>();
		for (Path module : modules()) {
			if (!module.getFileName().toString().equals(TEST_SUPPORT)) {
				testSources(module).stream()
					.filter((file) -> !ON_PURPOSE.containsKey(DocsFiles.relative(file)))
					.forEach((file) -> byHand.addAll(starts(file)));
			}
		}
		assertThat(byHand)
			.as("servers started by hand: declare a static @PrivateRedis field or a test's "
					+ "@PrivateRedis parameter instead (docs/testing.md)")
			.isEmpty();
	}

	@Test
	void theCodeAllowedToStartServersStillDoes() {
		Path root = DocsFiles.root();
		assertThat(ON_PURPOSE.keySet()).as("code listed as starting servers on purpose")
			.allSatisfy((file) -> assertThat(starts(root.resolve(file))).as(file).isNotEmpty());
	}

	@Test
	void theScanFindsTheStartsOfTestSupportsOwnTests() {
		List<String> found = testSources(DocsFiles.root().resolve(TEST_SUPPORT)).stream()
			.flatMap((file) -> starts(file).stream())
			.toList();
		assertThat(found).as("starts in redkit-test-support's tests, which test them")
			.anyMatch((start) -> start.contains("RedisServers.start"))
			.anyMatch((start) -> start.contains("RedisNode.start"));
	}

	private static List<Path> modules() {
		try (Stream<Path> children = Files.list(DocsFiles.root())) {
			return children.filter((child) -> Files.isDirectory(child.resolve(Path.of("src", "test", "java"))))
				.sorted()
				.toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static List<Path> testSources(Path module) {
		try (Stream<Path> files = Files.walk(module.resolve(Path.of("src", "test", "java")))) {
			return files.filter((file) -> file.toString().endsWith(".java")).sorted().toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The lines of a file that start a server, as {@code path:line: code}. */
	private static List<String> starts(Path file) {
		List<String> lines = DocsFiles.lines(file);
		List<String> starts = new ArrayList<>();
		for (int i = 0; i < lines.size(); i++) {
			if (START.matcher(lines.get(i)).find()) {
				starts.add(DocsFiles.relative(file) + ":" + (i + 1) + ": " + lines.get(i).trim());
			}
		}
		return starts;
	}

}
