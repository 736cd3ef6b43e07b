package io.github.redkit.docs;

import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code .ci/run} runs exactly the README's test command (its batch-mode flags and the
 * virtual-threads JVM aside): what CI checks is what a user is told to run.
 */
class CiCommandTests {

	@Test
	void ciRunsTheReadmesTestCommand() throws Exception {
		String readme = Files.readString(DocsFiles.root().resolve("README.md"));
		String twoCommands = readme.substring(readme.indexOf("## Two commands"), readme.indexOf("## Quick start"));
		List<String> readmeCommand = twoCommands.lines()
			.filter((line) -> line.startsWith("./mvnw verify"))
			.map(CiCommandTests::words)
			.findFirst()
			.orElseThrow(() -> new AssertionError("no ./mvnw verify line in the README's two commands"));
		List<String> ciCommand = Files.readAllLines(DocsFiles.root().resolve(".ci/run"))
			.stream()
			.filter((line) -> line.startsWith("./mvnw "))
			.map(CiCommandTests::words)
			.map((words) -> words.stream().filter((word) -> !word.equals("-B") && !word.equals("-ntp")).toList())
			.map((words) -> words.stream().takeWhile((word) -> !word.startsWith("${virtual_threads")).toList())
			.reduce((first, second) -> {
				throw new AssertionError(".ci/run runs more than one ./mvnw command");
			})
			.orElseThrow(() -> new AssertionError("no ./mvnw command in .ci/run"));
		assertThat(ciCommand).isEqualTo(readmeCommand);
	}

	private static List<String> words(String line) {
		return Arrays.stream(line.trim().split("\\s+")).toList();
	}

}
