package io.github.redkit.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopology;
import io.github.redkit.testsupport.TopologyIntent;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The table "Suites per topology" of {@code docs/testing.md}: each row names a test class
 * of a module and marks exactly the topologies of its intent. That every
 * {@code @RedisTopologies} suite is listed with the intent its compiled class declares,
 * and that no test code runs a class over the topologies but through
 * {@code @RedisTopologies(exercises = ...)}, is {@code TopologyIntentTests}' to hold,
 * from {@code redkit-test-support}'s jar in every module: it reads the compiled classes,
 * which no one module can read for the others.
 */
class TopologySuitesTests {

	private static final Pattern ROW = Pattern.compile("^\\| `(\\w+Tests)` \\| (\\w+) \\|(.*)\\|$");

	/** The table's columns, in its order. */
	private static final List<List<RedisTopology>> COLUMNS = List.of(List.of(RedisTopology.STANDALONE),
			List.of(RedisTopology.POOLED), List.of(RedisTopology.CLUSTER), List.of(RedisTopology.SENTINEL),
			List.of(RedisTopology.OLDEST), List.of(RedisTopology.REDIS_8),
			List.of(RedisTopology.VALKEY_9, RedisTopology.VALKEY_8));

	@Test
	void everyRowNamesATestClassOfAModule() {
		List<String> testClasses = testSources().stream()
			.map((file) -> file.getFileName().toString().replace(".java", ""))
			.toList();
		assertThat(testClasses).containsAll(TopologyIntent.listedSuites(DocsFiles.lines(testingGuide())).keySet());
	}

	@Test
	void eachRowMarksTheTopologiesOfItsIntent() {
		List<String> rows = new ArrayList<>();
		List<String> wrong = new ArrayList<>();
		for (String line : DocsFiles.lines(testingGuide())) {
			Matcher row = ROW.matcher(line);
			if (row.matches()) {
				rows.add(row.group(1));
				Exercises exercises = Exercises.valueOf(row.group(2));
				String[] cells = row.group(3).split("\\|", -1);
				for (int i = 0; i < COLUMNS.size(); i++) {
					boolean marked = i < cells.length && List.of("●", "+", "new").contains(cells[i].trim());
					if (marked != exercises.runsOn(COLUMNS.get(i).get(0))) {
						wrong.add(row.group(1) + " (" + exercises + ") " + (marked ? "marked on " : "not marked on ")
								+ COLUMNS.get(i));
					}
				}
			}
		}
		assertThat(rows).as("rows of the table").isNotEmpty();
		assertThat(wrong).as("rows whose marks are not their intent's topologies").isEmpty();
	}

	private static Path testingGuide() {
		return DocsFiles.root().resolve(Path.of("docs", "testing.md"));
	}

	private static List<Path> testSources() {
		try (Stream<Path> modules = Files.list(DocsFiles.root())) {
			List<Path> sources = new ArrayList<>();
			for (Path module : modules.sorted().toList()) {
				Path tests = module.resolve(Path.of("src", "test", "java"));
				if (Files.isDirectory(tests)) {
					try (Stream<Path> files = Files.walk(tests)) {
						files.filter((file) -> file.toString().endsWith(".java")).sorted().forEach(sources::add);
					}
				}
			}
			return sources;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
