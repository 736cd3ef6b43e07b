package io.github.redkit.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import io.github.redkit.testsupport.HandStartedServers;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rule of {@code docs/testing.md} for a Redis of a test's own (no test code starts
 * one by hand: a static {@code @PrivateRedis} field or a test's {@code @PrivateRedis}
 * parameter has {@code redkit-test-support} do it) is held by
 * {@code HandStartedServersTests}, which reads a module's compiled test classes and runs
 * from {@code redkit-test-support}'s jar in every module whose tests depend on it
 * (surefire's {@code dependenciesToScan} in the parent POM's {@code hand-started-servers}
 * profile): a parallel build compiles the modules in no fixed order, so no one module can
 * read the others' classes. This class checks that it does run everywhere: every module
 * with test code depends on {@code redkit-test-support} and keeps the parent's scan, and
 * the classes that start servers on purpose still exist.
 */
class PrivateServersTests {

	private static final String TEST_SUPPORT = "test-support";

	private static final String SCANNED = "<dependency>io.github.redkit:redkit-test-support</dependency>";

	@Test
	void everyModuleWithTestCodeRunsTheRule() {
		assertThat(DocsFiles.lines(DocsFiles.root().resolve("pom.xml"))).as("the parent's surefire dependenciesToScan")
			.anyMatch((line) -> line.trim().equals(SCANNED));
		for (Path module : modulesWithTests()) {
			String pom = String.join("\n", DocsFiles.lines(module.resolve("pom.xml")));
			assertThat(pom)
				.as("%s/pom.xml: its tests depend on redkit-test-support, so that "
						+ "HandStartedServersTests and TopologyIntentTests run there", module.getFileName())
				.contains("<artifactId>redkit-test-support</artifactId>")
				.doesNotContain("<dependenciesToScan");
		}
	}

	@Test
	void theClassesAllowedToStartServersExist() {
		List<Path> modules = modulesWithTests();
		assertThat(HandStartedServers.ON_PURPOSE.keySet()).as("classes listed as starting servers on purpose")
			.allSatisfy((name) -> assertThat(modules).as(name)
				.anyMatch((module) -> Stream.of("test", "main")
					.anyMatch((code) -> Files.isRegularFile(
							module.resolve(Path.of("src", code, "java", name.replace('.', '/') + ".java"))))));
	}

	private static List<Path> modulesWithTests() {
		try (Stream<Path> children = Files.list(DocsFiles.root())) {
			return children.filter((child) -> Files.isDirectory(child.resolve(Path.of("src", "test", "java"))))
				.filter((child) -> !child.getFileName().toString().equals(TEST_SUPPORT))
				.sorted()
				.toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
