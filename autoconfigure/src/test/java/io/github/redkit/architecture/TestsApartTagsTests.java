package io.github.redkit.architecture;

import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each class compiled apart ({@code autoconfigure/tests-apart}) carries the JUnit tag of
 * one of its executions there, read from the compiled class (as JUnit reads it): without
 * one it runs nowhere, with two twice. Runs there, where those classes are compiled;
 * {@link TestsApartTests} holds the rest.
 */
@Tag("tests-apart")
class TestsApartTagsTests {

	@Test
	void everyClassCompiledApartRunsInOneExecutionThere() {
		Map<String, Set<String>> executions = TestsApartBuild.executionGroups();
		assertThat(executions).as("the executions of tests-apart and their groups").isNotEmpty();
		List<Path> apart = TestsApartBuild.sources().stream().filter(TestsApartBuild::compiledApart).toList();
		assertThat(apart).as("the sources compiled apart").isNotEmpty();
		List<String> misplaced = new ArrayList<>();
		for (Path source : apart) {
			Class<?> compiled = TestsApartBuild.compiled(source);
			List<String> selectedBy = TestsApartBuild.executionsRunning(compiled, executions);
			// JUnit runs no abstract class: it runs as its subclasses, which carry the
			// tags
			if (!Modifier.isAbstract(compiled.getModifiers()) && selectedBy.size() != 1) {
				misplaced.add(source + " is compiled in tests-apart and runs in " + selectedBy + " of its executions");
			}
		}
		assertThat(misplaced).as("classes apart and the executions " + executions).isEmpty();
	}

}
