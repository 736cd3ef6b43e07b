package io.github.redkit.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.xml.parsers.DocumentBuilderFactory;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.github.redkit.testsupport.HandStartedServers;
import io.github.redkit.testsupport.NonBlockingThreads;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The test classes that need a JVM set up for them run in
 * {@code autoconfigure/tests-apart} and nowhere else, each once: its patterns
 * ({@code redkit.tests-apart.*} in {@code autoconfigure/tests-parent/pom.xml}) are left
 * out of this project's compilation and compiled there, and each class so compiled
 * carries the JUnit tag of one execution there (a {@code -Dtest=...} overrides an
 * execution's includes, not its groups, so without it a class compiled there only as
 * another's helper ran in both). A pattern missed in one of these places would compile
 * and run its classes nowhere, or twice. The tests that install BlockHound
 * ({@link NonBlockingThreads#watch()}) are among them: in this project's JVMs the call
 * skips its class, which then runs nowhere.
 */
class TestsApartTests {

	private static final Pattern PROPERTY = Pattern.compile("\\$\\{(redkit\\.tests-apart\\.[^}]+)}");

	private static final Pattern TAG = Pattern.compile("@Tag\\(\"([^\"]+)\"\\)");

	// autoconfigure, surefire's basedir
	private static final Path MODULE = Path.of(System.getProperty("basedir", System.getProperty("user.dir")))
		.toAbsolutePath()
		.normalize();

	@Test
	void noTestCompiledHereInstallsBlockHound() {
		JavaClasses classes = HandStartedServers.testClassesOfThisModule();
		assertThat(classes).as("this project's compiled test classes").isNotEmpty();
		noClasses().should()
			.callMethod(NonBlockingThreads.class, "watch")
			.because("a class that installs BlockHound is skipped in this project's JVMs: it belongs in "
					+ "autoconfigure/tests-apart (autoconfigure/tests-parent/pom.xml lists its classes)")
			.check(classes);
	}

	@Test
	void everyPatternOfTheClassesApartIsLeftOutHereAndCompiledThere() {
		Set<String> patterns = patterns().keySet();
		assertThat(patterns).as("the redkit.tests-apart.* properties of tests-parent/pom.xml").isNotEmpty();
		Document here = pom(MODULE.resolve("pom.xml"));
		Document apart = pom(MODULE.resolve("tests-apart/pom.xml"));
		assertThat(references(here, "testExclude")).as("the testExcludes of autoconfigure/pom.xml").isEqualTo(patterns);
		assertThat(references(here, "redkit.test-sources.compiled-elsewhere"))
			.as("redkit.test-sources.compiled-elsewhere in autoconfigure/pom.xml")
			.isEqualTo(patterns);
		assertThat(references(apart, "testInclude")).as("the testIncludes of autoconfigure/tests-apart/pom.xml")
			.isEqualTo(patterns);
	}

	@Test
	void everyClassCompiledApartRunsInOneExecutionThereAndNoneRunsHere() {
		Map<String, Set<String>> executions = executionGroups(pom(MODULE.resolve("tests-apart/pom.xml")));
		assertThat(executions).as("the executions of tests-apart and their groups").isNotEmpty();
		List<PathMatcher> apart = patterns().values()
			.stream()
			.map((pattern) -> FileSystems.getDefault().getPathMatcher("glob:" + pattern))
			.toList();
		Path sources = MODULE.resolve("src/test/java");
		List<String> misplaced = new ArrayList<>();
		for (Path source : sources(sources)) {
			Path relative = sources.relativize(source);
			Set<String> tags = tags(source);
			List<String> selectedBy = executions.entrySet()
				.stream()
				.filter((execution) -> execution.getValue().stream().anyMatch(tags::contains))
				.map(Map.Entry::getKey)
				.toList();
			boolean compiledApart = apart.stream().anyMatch((matcher) -> matcher.matches(relative));
			if (compiledApart && selectedBy.size() != 1) {
				misplaced.add(relative + " is compiled in tests-apart and runs in " + selectedBy
						+ " of its executions (tags " + tags + ")");
			}
			if (!compiledApart && !selectedBy.isEmpty()) {
				misplaced.add(relative + " is compiled here, yet tagged for tests-apart's " + selectedBy);
			}
		}
		assertThat(misplaced).as("classes tagged for tests-apart's executions " + executions).isEmpty();
	}

	// the patterns of the classes apart, by property name
	private static Map<String, String> patterns() {
		Map<String, String> patterns = new LinkedHashMap<>();
		NodeList properties = ((Element) pom(MODULE.resolve("tests-parent/pom.xml")).getElementsByTagName("properties")
			.item(0)).getChildNodes();
		for (int i = 0; i < properties.getLength(); i++) {
			Node property = properties.item(i);
			if (property instanceof Element && property.getNodeName().startsWith("redkit.tests-apart.")) {
				patterns.put(property.getNodeName(), property.getTextContent().trim());
			}
		}
		return patterns;
	}

	// the redkit.tests-apart.* properties the elements of a name refer to
	private static Set<String> references(Document pom, String element) {
		Set<String> names = new TreeSet<>();
		NodeList elements = pom.getElementsByTagName(element);
		for (int i = 0; i < elements.getLength(); i++) {
			Matcher reference = PROPERTY.matcher(elements.item(i).getTextContent());
			while (reference.find()) {
				names.add(reference.group(1));
			}
		}
		return names;
	}

	// each surefire execution's id and the tags its groups select
	private static Map<String, Set<String>> executionGroups(Document pom) {
		Map<String, Set<String>> executions = new LinkedHashMap<>();
		NodeList all = pom.getElementsByTagName("execution");
		for (int i = 0; i < all.getLength(); i++) {
			Element execution = (Element) all.item(i);
			NodeList groups = execution.getElementsByTagName("groups");
			if (groups.getLength() > 0) {
				Set<String> tags = new TreeSet<>();
				for (String tag : groups.item(0).getTextContent().split("\\|")) {
					tags.add(tag.trim());
				}
				executions.put(execution.getElementsByTagName("id").item(0).getTextContent().trim(), tags);
			}
		}
		return executions;
	}

	private static Set<String> tags(Path source) {
		Set<String> tags = new TreeSet<>();
		try {
			Matcher tag = TAG.matcher(Files.readString(source));
			while (tag.find()) {
				tags.add(tag.group(1));
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return tags;
	}

	private static List<Path> sources(Path folder) {
		try (Stream<Path> files = Files.walk(folder)) {
			return files.filter((file) -> file.toString().endsWith(".java")).sorted().toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static Document pom(Path pom) {
		try {
			return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
		}
		catch (Exception ex) {
			throw new IllegalStateException("Cannot read " + pom, ex);
		}
	}

}
