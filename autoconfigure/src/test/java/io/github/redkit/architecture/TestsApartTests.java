package io.github.redkit.architecture;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.github.redkit.testsupport.HandStartedServers;
import io.github.redkit.testsupport.NonBlockingThreads;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
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
 * another's helper ran in both): {@link TestsApartTagsTests} holds that there, where they
 * are compiled; here, no class compiled here carries such a tag. Tags are read from the
 * compiled classes, as JUnit reads them. A pattern missed in one of these places would
 * compile and run its classes nowhere, or twice. The tests that install BlockHound
 * ({@link NonBlockingThreads#watch()}) are among them: in this project's JVMs the call
 * skips its class, which then runs nowhere.
 */
class TestsApartTests {

	private static final Pattern PROPERTY = Pattern.compile("\\$\\{(redkit\\.tests-apart\\.[^}]+)}");

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
		Set<String> patterns = TestsApartBuild.patterns().keySet();
		assertThat(patterns).as("the redkit.tests-apart.* properties of tests-parent/pom.xml").isNotEmpty();
		Document here = TestsApartBuild.pom("pom.xml");
		Document apart = TestsApartBuild.pom("tests-apart/pom.xml");
		assertThat(references(here, "testExclude")).as("the testExcludes of autoconfigure/pom.xml").isEqualTo(patterns);
		assertThat(references(here, "redkit.test-sources.compiled-elsewhere"))
			.as("redkit.test-sources.compiled-elsewhere in autoconfigure/pom.xml")
			.isEqualTo(patterns);
		assertThat(references(apart, "testInclude")).as("the testIncludes of autoconfigure/tests-apart/pom.xml")
			.isEqualTo(patterns);
	}

	@Test
	void noClassCompiledHereIsTaggedForAnExecutionApart() {
		Map<String, Set<String>> executions = TestsApartBuild.executionGroups();
		assertThat(executions).as("the executions of tests-apart and their groups").isNotEmpty();
		List<String> misplaced = new ArrayList<>();
		for (Path source : TestsApartBuild.sources()) {
			if (!TestsApartBuild.compiledApart(source)) {
				List<String> selectedBy = TestsApartBuild.executionsRunning(TestsApartBuild.compiled(source),
						executions);
				if (!selectedBy.isEmpty()) {
					misplaced.add(source + " is compiled here, yet tagged for tests-apart's " + selectedBy);
				}
			}
		}
		assertThat(misplaced).as("classes tagged for tests-apart's executions " + executions).isEmpty();
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

}
